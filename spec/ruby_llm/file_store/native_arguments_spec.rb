# frozen_string_literal: true

# Values cross the boundary by name: no native method takes three or more
# positional arguments, or a flag by position (CONTRIBUTING, "the binding"). What
# each method takes is read from the binding's sources (BindingSources), that
# list is checked against the methods Ruby sees, and each method that reads
# keywords is called with three positional arguments, which it must refuse.
RSpec.describe RubyLLM::FileStore::Native, :native do
  include TmpDirHelper

  let(:defined) { BindingSources.methods_defined }

  def described(method)
    "#{method[:receiver]}#{method[:instance] ? '#' : '.'}#{method[:name]}(#{method[:types].join(', ')})"
  end

  it 'finds in the binding sources every method Ruby sees, at the arity Ruby sees' do
    expect(defined.map { |m| m.values_at(:receiver, :name, :instance, :arity) }.sort_by(&:to_s))
      .to eq(BindingSources.methods_seen.sort_by(&:to_s))
    expect(defined.size).to be > 40
  end

  it 'takes at most two positional arguments in every native method, and never a flag by position' do
    offenders = defined.select { |m| !m[:arity].between?(-1, 2) || m[:types].size > 2 || m[:types].include?('bool') }
    expect(offenders.map { |m| described(m) }).to eq([])
  end

  it 'refuses a third positional argument to each method that reads keywords' do
    instances = { "#{BindingSources::NATIVE}::Directory" => described_class::Directory.open(tmp_dir),
                  "#{BindingSources::NATIVE}::PassageIndex" => described_class::PassageIndex.new }
    by_name = defined.select { |m| m[:arity] == -1 }
    expect(by_name.map { |m| m[:name] }).to include('run', 'edit', 'read_lines', 'mount_unlink', 'search_tree')
    by_name.each do |m|
      target = m[:instance] ? instances.fetch(m[:receiver]) : Object.const_get(m[:receiver])
      expect { target.public_send(m[:name], 'a', 'b', 'c') }
        .to raise_error(ArgumentError, /wrong number of arguments \(given 3/), described(m)
    end
  end
end
