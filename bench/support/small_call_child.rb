# frozen_string_literal: true

# One measuring process of bench/small_call.rb, loading the gem from ARGV[0]; prints
# its figures (µs of CPU time a call, best of ROUNDS) as JSON.
$LOAD_PATH.unshift(ARGV.fetch(0))
require_relative '../../spec/ruby_llm_path'
RubyLLMPath.load!
require 'active_support'
require 'active_support/notifications'
require 'json'
require 'logger'
require 'tmpdir'
require 'ruby_llm/file_store'

ROUNDS = 7

def cpu
  Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
end

def per_call(calls, &call)
  call.call # warm
  Array.new(ROUNDS) do
    started = cpu
    calls.times(&call)
    (cpu - started) / calls * 1e6
  end.min
end

def bare(payload)
  yield(payload)
end

RubyLLM.config.instrumenter = ActiveSupport::Notifications
figures = {}
payload = { tool: 'read_file', path: 'notes.md' }
figures['bare block'] = per_call(200_000) { bare(payload) { |p| p } }
if defined?(RubyLLM::FileStore::Instrumentation) # a build before events has none
  figures['unsubscribed event'] = per_call(200_000) do
    RubyLLM::FileStore::Instrumentation.instrument(:tool, payload) { |p| p }
  end
end

text = (1..200).map { |n| "Line #{n} of the notes, with a few words on it." }.join("\n")
Dir.mktmpdir do |dir|
  stores = { 'folder' => RubyLLM::FileStore::Directory.new(File.join(dir, 'store')),
             'memory' => RubyLLM::FileStore::Memory.new }
  stores.each do |kind, store|
    store.write('notes.md', text)
    tool = RubyLLM::FileStore::Tools::ReadFile.new(store)
    figures["read_file of 10 lines, #{kind} store"] = per_call(20_000) { tool.call(path: 'notes.md', limit: 10) }
  end
  begin
    require 'ruby_llm/file_store/log_subscriber'
  rescue LoadError
    nil # a build without it
  end
  if defined?(RubyLLM::FileStore::LogSubscriber)
    ActiveSupport::LogSubscriber.logger = Logger.new(File::NULL, level: :debug)
    RubyLLM::FileStore::LogSubscriber.attach_to(:'file_store.ruby_llm') unless
      ActiveSupport::Notifications.notifier.listening?('tool.file_store.ruby_llm')
    tool = RubyLLM::FileStore::Tools::ReadFile.new(stores['folder'])
    figures['the same, log subscriber at debug'] = per_call(20_000) { tool.call(path: 'notes.md', limit: 10) }
  end
end
puts JSON.generate(figures)
