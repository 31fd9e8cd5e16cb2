# frozen_string_literal: true

# The cost of the sandbox: one `print(1)` run through CodeRunner's native runner
# under bubblewrap, against the same interpreter started bare. The three ways take
# turns in each round, so a burst of load on a shared machine falls on all of them;
# the figures are the best of N rounds each, and the median of the rounds'
# differences, so the overhead is not the noise of a busy machine.
#
#   ruby bench/run.rb [N]

$LOAD_PATH.unshift File.expand_path('../lib', __dir__)
# ruby_llm, which the gem requires, as the specs find it (RUBY_LLM_PATH, else ../shared/gems).
require_relative '../spec/ruby_llm_path'
RubyLLMPath.load!
require 'ruby_llm/file_store'
require 'tmpdir'

N = Integer(ARGV.fetch(0, 30))
NATIVE = RubyLLM::FileStore::Native
LIMITS = RubyLLM::FileStore::CodeRunner::DEFAULT_LIMITS.slice(*RubyLLM::FileStore::CodeRunner::NATIVE_LIMITS)

def timed
  started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  yield
  Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
end

abort "bubblewrap cannot run here: #{NATIVE.sandbox_problem}" if NATIVE.sandbox_problem
python = '/usr/bin/python3'
Dir.mktmpdir('ruby_llm_bench') do |dir|
  argv = [python, '-c', 'print(1)']
  rounds = Array.new(N) do
    [timed { system(*argv, out: File::NULL) || abort('bare python3 failed') },
     timed { NATIVE.run(argv:, dir:, sandbox: false, timeout: 10.0, limits: LIMITS) },
     timed do
       NATIVE.run(argv:, dir:, sandbox: true, timeout: 10.0, limits: LIMITS).fetch(:exit_code).zero? ||
         abort('sandboxed run failed')
     end]
  end
  bare, plain, boxed = rounds.transpose.map(&:min)
  median = rounds.map { |round| round[2] - round[0] }.sort[N / 2]
  ms = ->(seconds) { format('%.1f ms', seconds * 1000) }
  puts "python3 -c 'print(1)', best of #{N} rounds"
  puts "  bare (Ruby system):          #{ms.call(bare)}"
  puts "  runner, no sandbox:          #{ms.call(plain)}"
  puts "  runner, bubblewrap sandbox:  #{ms.call(boxed)}"
  puts "  sandbox overhead over bare:  #{ms.call(boxed - bare)} best, #{ms.call(median)} median of rounds; " \
       'goal < 50 ms'
end
