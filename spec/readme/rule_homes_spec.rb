# frozen_string_literal: true

# CONTRIBUTING's "Where each rule lives": each rule has one home. What can be read
# from the table is checked against that home: every file it names exists, every
# name it places in a file is defined there, every Native constant and function it
# names is there, and every figure it gives is the value its home holds. Then, for
# the rules moved into the core, that the Ruby layer does not state them again.
module RuleHomes
  ROOT = File.expand_path('../..', __dir__)
  FILES = Dir.glob('{crates/*/src,ext/ruby_llm_file_store/src,lib}/**/*.{rs,rb}', base: ROOT).freeze

  module_function

  # The table's rows as [rule, home, who asks it].
  def rows
    text = File.read(File.join(ROOT, 'CONTRIBUTING.md'))
    table = text[/^## Where each rule lives\n(.*?)\n\n(?=\S)/m, 1] or raise 'no rule table in CONTRIBUTING.md'
    table.lines.grep(/\A\| /).drop(1).map { |line| line.split(' | ').map { |cell| cell.delete_prefix('| ').delete_suffix(" |\n") } }
  end

  # The repository's file that +name+ (a path, or its end: "text/lines.rs") names.
  def file(name)
    FILES.find { |path| path == name || path.end_with?("/#{name}") }
  end

  # The Ruby code of the lib/ files, comments left out.
  def ruby_code
    Dir[File.join(ROOT, 'lib/**/*.rb')].to_h do |path|
      [path.delete_prefix("#{ROOT}/"), File.readlines(path).grep_v(/\A\s*#/).join]
    end
  end
end

RSpec.describe 'CONTRIBUTING: where each rule lives' do
  let(:native) { RubyLLM::FileStore::Native }
  let(:rows) { RuleHomes.rows }
  let(:homes) { rows.map { |row| row[1] } }

  it 'reads a row for each rule' do
    expect(rows.map(&:first)).to include('is a file text', "a run's limits", 'which converters read a type')
  end

  it 'names files that exist, and names in them that each file defines' do
    named = homes.join(' ').scan(%r{`([\w./]+\.r[sb])`}).flatten.reject { |name| name.include?('<') }
    expect(named.reject { |name| RuleHomes.file(name) }).to eq([])
    placed = homes.join(' ').scan(%r{`([\w:]+)`(?: \([^)]*\))? in `([\w./]+\.r[sb])`})
    expect(placed.size).to be >= 6
    missing = placed.reject do |name, path|
      source = File.read(File.join(RuleHomes::ROOT, RuleHomes.file(path)))
      ident = name.split('::').last
      source.match?(/\b(fn|const|def|def self\.|impl|struct|enum) ?#{ident}\b|\b#{ident} = /) ||
        (name.include?('::') && source.match?(/fn #{ident}\b/))
    end
    expect(missing).to eq([])
  end

  it 'names Native constants and functions that the binding defines' do
    constants = homes.join(' ').scan(/`Native::([A-Z_]+)`/).flatten
    functions = homes.join(' ').scan(/`Native\.(\w+[?=]?)`/).flatten
    expect(constants).to include('RUN_LIMITS', 'NOT_TEXT', 'CONVERTERS')
    expect(constants.reject { |name| native.const_defined?(name, false) }).to eq([])
    expect(functions.reject { |name| native.respond_to?(name) }).to eq([])
  end

  it 'gives the figures its homes hold' do
    home = ->(rule) { rows.find { |row| row.first == rule }[1] }
    expect(home.call("a file's version")).to include("`DIGEST_LIMIT` (#{native::DIGEST_LIMIT >> 20} MB)")
    expect(home.call('the result ceiling')).to include("`MAX_RESULT_CHARS` (#{native::MAX_RESULT_CHARS.to_s.reverse.scan(/\d{1,3}/).join(',').reverse} characters)")
    limits = home.call("a run's limits").scan(/`(\w+)` ([\d,]+)/).to_h { |name, value| [name.to_sym, Integer(value.delete(','))] }
    expect(limits).to eq(native::RUN_LIMITS.slice(:cpu_seconds, :output_bytes))
  end

  it "keeps the core's run limits as CodeRunner's defaults and as docs/running_code.md states them" do
    runner = RubyLLM::FileStore::CodeRunner
    expect(runner::DEFAULT_LIMITS.slice(*runner::NATIVE_LIMITS)).to eq(native::RUN_LIMITS.slice(*runner::NATIVE_LIMITS))
    expect(runner::DEFAULT_LIMITS.keys - native::RUN_LIMITS.keys).to match_array(%i[save_bytes folder_bytes folder_files])
    doc = File.read(File.join(RuleHomes::ROOT, 'docs/running_code.md')).gsub(/\s+/, ' ')
    expect(doc).to include("`cpu_seconds` (#{native::RUN_LIMITS[:cpu_seconds]})")
    expect(doc).to include("kept up to #{native::RUN_LIMITS[:output_bytes].to_s.sub(/(\d+)(\d{3})\z/, '\1,\2')} bytes each")
    expect(doc).to include("`new_names` (default #{native::RUN_LIMITS[:new_names].to_s.sub(/(\d+)(\d{3})\z/, '\1,\2')})")
  end

  it "keeps a run's timeout where the core keeps it: one default, refused at setup by the core's rule" do
    expect(RubyLLM::FileStore::CodeRunner::DEFAULT_TIMEOUT).to eq(native::RUN_LIMITS[:timeout])
    stated = RuleHomes.ruby_code.select { |_path, code| code.match?(/timeout: \d/) || code.match?(/timeout\.positive\?/) }
    expect(stated.keys).to eq([])
  end

  it 'leaves out of the Ruby code what the core says: the reasons a file is no text, the NUL test, the lookup order' do
    stated = RuleHomes.ruby_code.select do |_path, code|
      native::NOT_TEXT.values.any? { |why| code.include?("'#{why}'") || code.include?("\"#{why}\"") } ||
        code.include?('include?("\0")') || code.include?("split('/').first}/*") ||
        code.match?(/\{ *PDF *=> *'pdf'/)
    end
    expect(stated.keys).to eq([])
  end

  it "leaves out of the Ruby code what a store's walks show: which names are hidden or no store path holds" do
    stated = RuleHomes.ruby_code.select do |_path, code|
      code.include?("start_with?('.')") || code.include?('start_with?(".")') || code.include?('[:cntrl:]')
    end
    expect(stated.keys).to eq([])
  end
end
