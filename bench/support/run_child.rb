# frozen_string_literal: true

# One measuring process of bench/run.rb, loading the gem from ARGV[0]: the first
# sandboxed run (which starts the supervisor where the build has one), then ARGV[1]
# rounds of python3 -c 'print(1)' bare, through the runner without the sandbox and
# under bubblewrap; prints the times in seconds as JSON.
$LOAD_PATH.unshift(ARGV.fetch(0))
require_relative '../../spec/ruby_llm_path'
RubyLLMPath.load!
require 'json'
require 'tmpdir'
require 'ruby_llm/file_store'

NATIVE = RubyLLM::FileStore::Native
LIMITS = RubyLLM::FileStore::CodeRunner::DEFAULT_LIMITS.slice(*RubyLLM::FileStore::CodeRunner::NATIVE_LIMITS)
ARGV_PRINT = ['/usr/bin/python3', '-c', 'print(1)'].freeze

def timed
  started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  yield
  Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
end

def boxed(dir)
  ran = NATIVE.run(argv: ARGV_PRINT, dir:, sandbox: true, timeout: 10.0, limits: LIMITS)
  abort "sandboxed run failed: #{ran.inspect}" unless ran.fetch(:exit_code).zero?
end

Dir.mktmpdir('ruby_llm_bench') do |dir|
  first = timed { boxed(dir) }
  rounds = Array.new(Integer(ARGV.fetch(1))) do
    [timed { system(*ARGV_PRINT, out: File::NULL) || abort('bare python3 failed') },
     timed { NATIVE.run(argv: ARGV_PRINT, dir:, sandbox: false, timeout: 10.0, limits: LIMITS) },
     timed { boxed(dir) }]
  end
  puts JSON.generate(first:, rounds:)
end
