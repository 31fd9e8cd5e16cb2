# frozen_string_literal: true

# One run of bench/pdf_search.rb, in a Ruby process of its own with the build its -I
# names: the first and the second search_files over the folder ARGV[0], timed, and the
# process's peak resident set, as one line of JSON.
require 'json'
require 'ruby_llm/file_store'

def timed
  started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  value = yield
  [Process.clock_gettime(Process::CLOCK_MONOTONIC) - started, value]
end

store = RubyLLM.file_store.directory(ARGV.fetch(0))
tool = RubyLLM::FileStore::Tools::SearchFiles.new(store)
first, answer = timed { tool.call(pattern: 'termination for cause', ignore_case: true) }
second, again = timed { tool.call(pattern: 'termination for cause', ignore_case: true) }
raise 'the second search answered differently' unless again == answer

peak = File.read('/proc/self/status')[/VmHWM:\s+(\d+)/, 1].to_i / 1024.0
puts JSON.generate(first:, second:, answer:, peak_mb: peak)
