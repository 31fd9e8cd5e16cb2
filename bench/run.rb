# frozen_string_literal: true

# The cost of the sandbox: one `print(1)` run through the native runner under
# bubblewrap, against the same interpreter started bare, and against the runner
# without the sandbox. Each build measures in child processes of its own; with
# --baseline the two builds take turns, so a burst of load on a shared machine falls
# on both. The figures are the best of every round, the median of the rounds'
# differences (sandboxed minus bare), and the first sandboxed run of a process.
#
#   ruby bench/run.rb [N]                      # N rounds (default 30)
#   ruby bench/run.rb [N] --baseline LIB       # and LIB's build, with ratios
#
# LIB is another build's lib/ folder, such as a worktree of an earlier commit with
# `rake compile` run in it.

require 'json'
require 'open3'
require 'rbconfig'

CHILD = File.expand_path('support/run_child.rb', __dir__)
LIB = File.expand_path('../lib', __dir__)
TURNS = 3

args = ARGV.dup
baseline = (index = args.index('--baseline')) && args.slice!(index, 2).last
rounds = Integer(args.fetch(0, 30))
builds = baseline ? { 'this build' => LIB, 'baseline' => baseline } : { 'this build' => LIB }

def child(lib, rounds)
  out, status = Open3.capture2(RbConfig.ruby, CHILD, lib, rounds.to_s)
  abort "the child for #{lib} failed" unless status.success?
  JSON.parse(out)
end

turns = Array.new(TURNS) { builds.transform_values { |lib| child(lib, (rounds / TURNS.to_f).ceil) } }
figures = builds.keys.to_h do |build|
  mine = turns.map { |turn| turn[build] }
  all = mine.flat_map { |figure| figure['rounds'] }
  bare, plain, boxed = all.transpose.map(&:min)
  over = all.map { |round| round[2] - round[0] }.sort
  [build, { 'bare' => bare, 'runner, no sandbox' => plain, 'runner, bubblewrap' => boxed,
            'sandbox over bare (median)' => over[over.size / 2],
            'first sandboxed run' => mine.map { |figure| figure['first'] }.min }]
end

puts "load average #{File.read('/proc/loadavg').split.first(3).join(' ')}; python3 -c 'print(1)', " \
     "best of #{TURNS * (rounds / TURNS.to_f).ceil} rounds (first run: best of #{TURNS} processes)"
figures['this build'].each_key do |key|
  this = figures['this build'][key]
  line = format('  %-28<key>s %<ms>7.1f ms', key: "#{key}:", ms: this * 1000)
  if (base = figures.dig('baseline', key))
    line += format('   baseline %<ms>7.1f ms   %<ratio>.2fx', ms: base * 1000, ratio: this / base)
  end
  puts line
end
