# frozen_string_literal: true

# The small call: what the gem adds to a call that does little. Run by hand from the
# gem's folder after `rake compile`:
#
#   ruby bench/small_call.rb                    # this build
#   ruby bench/small_call.rb --baseline LIB     # and LIB's, interleaved, with ratios
#
# It measures, each in a Ruby process of its own, CPU time per call (the best of 7
# rounds): an event nobody subscribes to (Active Support's notifications as ruby_llm's
# instrumenter, as in a Rails app) against the bare block it wraps; and a 10-line
# read_file of a Markdown file on a folder store and on a memory store, without a
# subscriber and with the gem's log subscriber at debug level. LIB is the lib/ folder
# of another checkout, built, e.g. a820bce's:
#
#   git worktree add /tmp/a820bce a820bce && cd /tmp/a820bce && \
#     cargo build --release -p ruby_llm_file_store && \
#     cp target/release/libfile_store_native.so lib/ruby_llm/file_store/file_store_native.so
#   ruby bench/small_call.rb --baseline /tmp/a820bce/lib
#
# Pairs of child processes run this build and the baseline alternately, so a load
# that moves meanwhile weighs on both alike.

require 'json'
require 'open3'
require 'rbconfig'

class SmallCallBench
  CHILD = File.expand_path('support/small_call_child.rb', __dir__)
  LIB = File.expand_path('../lib', __dir__)
  PAIRS = 3

  def initialize(argv)
    @baseline = argv[argv.index('--baseline') + 1] if argv.include?('--baseline')
  end

  def run
    puts "load average #{File.read('/proc/loadavg').split.first(3).join(' ')}; best CPU time per call"
    runs = Array.new(PAIRS) { builds.transform_values { |lib| child(lib) } }
    best = builds.keys.to_h { |build| [build, merge(runs.map { |r| r[build] })] }
    report(best)
  end

  private

  def builds
    @baseline ? { 'this build' => LIB, 'baseline' => @baseline } : { 'this build' => LIB }
  end

  def child(lib)
    out, status = Open3.capture2(RbConfig.ruby, CHILD, lib)
    raise "the child for #{lib} failed" unless status.success?

    JSON.parse(out)
  end

  def merge(figures)
    figures.first.keys.to_h { |key| [key, figures.map { |f| f[key] }.compact.min] }
  end

  def report(best)
    this = best['this build']
    best.first.last.each_key do |key|
      line = format('%<key>-40s %<us>10.3f µs', key:, us: this[key])
      base = @baseline && best['baseline'][key]
      line += format('   baseline %<us>10.3f µs   %<ratio>.2fx', us: base, ratio: this[key] / base) if base
      puts line
    end
    added = this['unsubscribed event'] - this['bare block']
    puts format('an unsubscribed event adds %<us>.3f µs a call (goal: under 0.5)', us: added)
  end
end

SmallCallBench.new(ARGV).run if $PROGRAM_NAME == __FILE__
