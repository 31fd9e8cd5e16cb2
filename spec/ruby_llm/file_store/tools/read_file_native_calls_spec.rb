# frozen_string_literal: true

# Issue 43: one read_file call asks the core one question, not one per field of a
# wrapped answer. Each native call takes Ruby's lock and converts values both ways,
# so a small read on a busy app was mostly crossings; this counts them.
RSpec.describe RubyLLM::FileStore::Tools::ReadFile do
  include TmpDirHelper

  # The methods the binding defines: on Native (its module functions), on its
  # classes, and on the singleton class of each (a class's own methods, as
  # Native::Directory.open).
  def native_owners
    native = RubyLLM::FileStore::Native
    modules = [native] + native.constants.map { |name| native.const_get(name) }.grep(Module)
    modules.flat_map { |mod| [mod, mod.singleton_class] }
  end

  def native_calls(&)
    owners = native_owners
    calls = []
    trace = TracePoint.new(:c_call) do |point|
      calls << "#{point.defined_class}##{point.method_id}" if owners.include?(point.defined_class)
    end
    trace.enable(&)
    calls
  end

  let(:text) { "# Notes\n\n#{(1..40).map { |n| "Line #{n}" }.join("\n")}\n" }

  def read_once(store)
    store.write('notes.md', text)
    tool = described_class.new(store)
    result = nil
    calls = native_calls { result = tool.call(path: 'notes.md', offset: 3, limit: 2) }
    expect(result).to eq("     3\tLine 1\n     4\tLine 2\n[Showing lines 3-4 of 42. Read on with offset: 5.]")
    calls
  end

  it 'asks the core at most three times for a Markdown file of a folder store' do
    calls = read_once(RubyLLM.file_store.directory(File.join(tmp_dir, 'store')))
    expect(calls.size).to be <= 3, "#{calls.size} native calls: #{calls.join(', ')}"
  end

  it 'asks the core at most twice for a file of a memory store' do
    calls = read_once(RubyLLM.file_store.memory)
    expect(calls.size).to be <= 2, "#{calls.size} native calls: #{calls.join(', ')}"
  end
end
