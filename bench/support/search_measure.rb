# frozen_string_literal: true

require 'tempfile'

# One run of one contender in a process of its own: a forked Ruby child, or an
# external command under GNU time. Each gives its wall time, its peak resident set
# size and what it produced.
module SearchMeasure
  Sample = Struct.new(:seconds, :peak_mb, :value)
  BUFFER = 1 << 16
  TIME = '/usr/bin/time'

  module_function

  # Runs the block in a forked child and returns a Sample: the block's wall time, the
  # child's VmHWM when it returned, and its value (which must Marshal). The child
  # starts with a copy of this process, so its peak includes this process's memory.
  def in_child(&block)
    reader, writer = IO.pipe
    pid = fork { child(reader, writer, &block) }
    writer.close
    result = Marshal.load(reader.read) # rubocop:disable Security/MarshalLoad
    reader.close
    Process.wait(pid)
    raise "child failed: #{result}" if result.is_a?(String)

    result
  end

  # In the child: sends the outcome of the block to the parent and exits at once, so
  # that no at_exit or ensure of the parent runs here.
  def child(reader, writer)
    reader.close
    result = begin
      started = now
      value = yield
      Sample.new(now - started, peak_mb, value)
    rescue Exception => e # rubocop:disable Lint/RescueException
      "#{e.class}: #{e.message}\n  #{e.backtrace.first(5).join("\n  ")}"
    end
    writer.write(Marshal.dump(result))
    writer.close
    exit!(0)
  end

  # Runs +argv+ under GNU time with its output on a pipe that is read to the end,
  # and returns a Sample: wall time from spawn to exit, the maximum resident set size
  # GNU time reports, and { bytes:, lines:, output: } of what it wrote (output only
  # with +keep+). Exit status 1 (no match) counts as success.
  def command(argv, keep: false)
    Tempfile.create('search_bench_time') do |err|
      reader, writer = IO.pipe
      started = now
      pid = Process.spawn(TIME, '-f', '%M', *argv, out: writer, err: err.path)
      writer.close
      value = drain(reader, keep)
      _, status = Process.wait2(pid)
      seconds = now - started
      report = File.read(err.path)
      raise "#{argv.join(' ')} failed (#{status.exitstatus}): #{report}" unless [0, 1].include?(status.exitstatus)

      Sample.new(seconds, report.lines.last.to_i / 1024.0, value)
    end
  end

  def drain(reader, keep)
    value = { bytes: 0, lines: 0, output: (+'' if keep) }
    buffer = String.new(capacity: BUFFER, encoding: Encoding::BINARY)
    while reader.read(BUFFER, buffer)
      value[:bytes] += buffer.bytesize
      value[:lines] += buffer.count("\n")
      value[:output] << buffer if keep
    end
    reader.close
    value
  end

  # The fastest of +runs+ Samples from the block, with the highest peak of them all
  # and the last value.
  def best_of(runs, &)
    samples = Array.new(runs, &)
    Sample.new(samples.map(&:seconds).min, samples.map(&:peak_mb).max, samples.last.value)
  end

  # This process's peak resident set size so far, in MB.
  def peak_mb
    File.read('/proc/self/status')[/^VmHWM:\s*(\d+) kB/, 1].to_i / 1024.0
  end

  def now
    Process.clock_gettime(Process::CLOCK_MONOTONIC)
  end
end
