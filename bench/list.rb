# frozen_string_literal: true

# list_files on a folder store against `find -type f -printf '%P %s\n'`, at 50,000 and
# 100,000 files, in one table: CPU time, wall time and peak memory, with the ratios
# to find. Run by hand from the gem's folder after `rake compile`:
#
#   ruby bench/list.rb          # 50,000 and 100,000 files, 3 runs each
#   ruby bench/list.rb --quick  # 5,000 files, as a smoke run
#
# The trees are made once under /tmp (kept while their stamp matches). Each run is a
# fresh process: find under GNU time (its maximum RSS), or a forked Ruby child that
# has loaded the gem and opened the store, whose CPU time is the call's alone and
# whose memory is its peak (VmHWM) over what it held before the call ("over the
# loaded gem"). Both list the whole tree and write what they show to a pipe read to
# the end. `store.list` (every file as a StoredFile, what list_files did before it
# kept only the first 1,000) is shown beside them.

$LOAD_PATH.unshift(File.expand_path('../lib', __dir__))
require_relative '../spec/ruby_llm_path'
RubyLLMPath.load!
require 'ruby_llm/file_store'
require 'fileutils'
require 'tmpdir'

class ListBench
  RUNS = 3
  BASE = File.join(Dir.tmpdir, 'ruby_llm_file_store_list_bench')

  def initialize(argv)
    @sizes = argv.include?('--quick') ? [5_000] : [50_000, 100_000]
    @rows = []
  end

  def run
    @sizes.each do |files|
      root = tree(files)
      find = median(RUNS.times.map { find_run(root) })
      @rows << row("find -printf, #{files} files", find, find)
      @rows << row("list_files, #{files} files", median(RUNS.times.map { ruby_run(root, :tool) }), find)
      @rows << row("store.list, #{files} files", median(RUNS.times.map { ruby_run(root, :list) }), find)
    end
    report
  end

  private

  # 100 folders of files with 20-character names, made once.
  def tree(files)
    root = File.join(BASE, files.to_s)
    stamp = File.join(root, '.made')
    return root if File.exist?(stamp)

    FileUtils.rm_rf(root)
    100.times { |folder| FileUtils.mkdir_p(File.join(root, format('folder-%03d', folder))) }
    files.times do |i|
      File.write(File.join(root, format('folder-%03d', i % 100), format('file-%014d.txt', i)), 'x' * (i % 50))
    end
    File.write(stamp, '')
    root
  end

  def find_run(root)
    out = IO.popen(['/usr/bin/time', '-f', '%U %S %e %M', 'find', root, '-type', 'f', '-printf', "%P %s\n",
                    { err: %i[child out] }], &:read)
    user, system, wall, kb = out.lines.last.split.map(&:to_f)
    { cpu: user + system, wall:, memory: kb * 1024 }
  end

  def ruby_run(root, how)
    reader, writer = IO.pipe
    pid = fork do
      reader.close
      writer.write(Marshal.dump(measure(root, how)))
      writer.close
      exit!(0)
    end
    writer.close
    result = Marshal.load(reader.read) # rubocop:disable Security/MarshalLoad
    Process.wait(pid)
    result
  end

  def measure(root, how)
    store = RubyLLM::FileStore::Directory.new(root)
    tool = RubyLLM::FileStore::Tools::ListFiles.new(store)
    GC.start
    # A forked child inherits its parent's peak: start it again from here.
    File.write('/proc/self/clear_refs', '5')
    rss = status('VmRSS')
    cpu = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
    wall = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    shown = how == :tool ? tool.call : store.list.map { |file| "#{file.path} #{file.byte_size}" }.join("\n")
    File.write(File::NULL, shown)
    { cpu: Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) - cpu,
      wall: Process.clock_gettime(Process::CLOCK_MONOTONIC) - wall,
      memory: status('VmHWM') - rss }
  end

  def status(field)
    File.read('/proc/self/status')[/^#{field}:\s+(\d+)/, 1].to_i * 1024
  end

  def median(runs)
    %i[cpu wall memory].to_h { |key| [key, runs.map { |run| run[key] }.sort[runs.size / 2]] }
  end

  def row(name, result, find)
    [name, format('%.3f s', result[:cpu]), format('%.2fx', result[:cpu] / find[:cpu]),
     format('%.3f s', result[:wall]), format('%.2fx', result[:wall] / find[:wall]),
     format('%.1f MB', result[:memory] / 1e6)]
  end

  def line(cells)
    cells.zip([-34, 10, 8, 10, 8, 12]).map { |cell, width| width.negative? ? cell.ljust(-width) : cell.rjust(width) }
         .join(' ')
  end

  def report
    puts "load average: #{File.read('/proc/loadavg').split.first(3).join(' ')}, #{RUNS} runs each, medians"
    puts line(['work', 'CPU', 'vs find', 'wall', 'vs find', 'peak memory'])
    @rows.each { |cells| puts line(cells) }
    puts '(find: its maximum RSS; Ruby: the peak over what the process held with the gem loaded)'
  end
end

ListBench.new(ARGV).run if $PROGRAM_NAME == __FILE__
