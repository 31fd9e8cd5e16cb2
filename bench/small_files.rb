# frozen_string_literal: true

# search_files against ripgrep over many small files: 5,000, 50,000 and 500,000 files
# of 1 to 3 KB in 250 x 20 folders, a rare pattern and a common word ignoring case.
# Run by hand from the gem's folder after `rake compile`:
#
#   ruby bench/small_files.rb            # the three sizes
#   ruby bench/small_files.rb 5000 50000 # the sizes named
#   ruby bench/small_files.rb --clean    # delete the generated trees and stop
#
# The trees are generated once under /tmp and kept for the next run (a stamp file
# names what made them). Every contender runs once untimed to warm the page cache and
# give its count of matching lines, then RUNS times, alternating with the other, each
# in a fresh process: search_files as the model calls it (a folder store opened, one
# tool call) in a forked Ruby child, ripgrep (`rg -n`, its output read from a pipe) as
# a command. CPU is user + system time of that process (the child's, from fork to its
# answer, or rg's, from exec to exit), the best of the runs; wall likewise. Ratios are
# ours over ripgrep's: under 1.0 is faster. Peak memory is the child's highest resident
# set over what it held when forked, the most of its runs.

$LOAD_PATH.unshift(File.expand_path('../lib', __dir__))
require_relative '../spec/ruby_llm_path'
RubyLLMPath.load!
require 'ruby_llm/file_store'
require 'fileutils'
require 'tmpdir'
require 'etc'
require_relative 'support/small_files_tree'

class SmallFilesBench
  RUNS = 5
  SIZES = [5_000, 50_000, 500_000].freeze
  SEARCHES = [['marker[0-9]+', false], ['common', true]].freeze
  BASE = File.join(Dir.tmpdir, 'ruby_llm_file_store_small_files_bench')
  Sample = Struct.new(:cpu, :wall, :matches, :peak)

  def initialize(argv)
    @clean = argv.include?('--clean')
    sizes = argv.grep(/\A\d+\z/).map(&:to_i)
    @sizes = sizes.empty? ? SIZES : sizes
  end

  def run
    return FileUtils.rm_rf(BASE) if @clean

    puts "ruby #{RUBY_VERSION}, #{Etc.nprocessors} cores, #{`rg --version`.lines.first.strip}, " \
         "load average #{File.read('/proc/loadavg').split.first(3).join(' ')}"
    puts "best of #{RUNS} alternating runs after one warm-up each; every run a process of its own"
    puts row('files', 'search', 'ours cpu / wall', 'rg cpu / wall', 'cpu ratio', 'wall', 'ours peak')
    @sizes.each { |size| bench_size(size) }
  end

  def bench_size(size)
    root = SmallFilesTree.path(BASE, size)
    SEARCHES.each do |pattern, ignore_case|
      ours = -> { in_child { search_files(root, pattern, ignore_case) } }
      theirs = -> { ripgrep(root, pattern, ignore_case) }
      counts = [ours.call.matches, theirs.call.matches]
      raise "matching lines differ at #{size} files: ours #{counts[0]}, rg #{counts[1]}" if counts.uniq.size > 1

      samples = Array.new(RUNS) { [ours.call, theirs.call] }.transpose.map { |runs| best(runs) }
      report(size, "/#{pattern}/#{'i' if ignore_case} (#{counts[0]})", *samples)
    end
  end

  def report(size, label, ours, theirs)
    puts row(size.to_s.reverse.scan(/\d{1,3}/).join(',').reverse, label, times(ours), times(theirs),
             ratio(ours.cpu / theirs.cpu), ratio(ours.wall / theirs.wall), "#{ours.peak.round(1)} MB")
  end

  def row(*cells)
    widths = [9, 24, 17, 17, 10, 8, 10]
    cells.zip(widths).each_with_index.map { |(cell, width), i| i < 2 ? cell.ljust(width) : cell.rjust(width) }.join(' ')
  end

  def times(sample) = "#{sample.cpu.round(3)} / #{sample.wall.round(3)}"

  def ratio(value) = "#{value.round(2)}x"

  def best(runs)
    Sample.new(runs.map(&:cpu).min, runs.map(&:wall).min, runs.last.matches, runs.filter_map(&:peak).max)
  end

  # The tool call as the model makes it; the total from its summary line.
  def search_files(root, pattern, ignore_case)
    store = RubyLLM.file_store.directory(root)
    text = RubyLLM::FileStore::Tools::SearchFiles.new(store).call(pattern:, ignore_case:)
    summary = text[/Showing \d+ of (\d+) matching lines/, 1]
    summary ? summary.to_i : text.lines.count { |line| line.match?(/\A[^\n]*?:\d+: /) }
  end

  # The block's value (a count) in a forked child, with the child's CPU and wall time,
  # and its peak memory over what it held when forked (the loaded gem), in MB.
  def in_child
    reader, writer = IO.pipe
    started = now
    pid = fork do
      reader.close
      before = status_kb('VmRSS')
      count = yield
      writer.write("#{count} #{status_kb('VmHWM') - before}")
      writer.close
      exit!(0)
    end
    writer.close
    count, peak = reader.read.split.map(&:to_i)
    reader.close
    cpu = child_cpu { Process.wait(pid) }
    Sample.new(cpu, now - started, count, peak / 1024.0)
  end

  def status_kb(field) = File.read('/proc/self/status')[/^#{field}:\s+(\d+)/, 1].to_i

  def ripgrep(root, pattern, ignore_case)
    reader, writer = IO.pipe
    started = now
    pid = Process.spawn('rg', '-n', *(['-i'] if ignore_case), pattern, root, out: writer)
    writer.close
    lines = 0
    buffer = String.new(capacity: 1 << 16)
    lines += buffer.count("\n") while reader.read(1 << 16, buffer)
    reader.close
    cpu = child_cpu { Process.wait(pid) }
    Sample.new(cpu, now - started, lines)
  end

  # The CPU time of the children reaped in the block.
  def child_cpu
    before = Process.times
    yield
    after = Process.times
    (after.cutime - before.cutime) + (after.cstime - before.cstime)
  end

  def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)
end

SmallFilesBench.new(ARGV).run
