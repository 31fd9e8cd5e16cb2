# frozen_string_literal: true

class StoreBench
  # Runs a block in a forked child and returns its Hash result with the child's peak
  # resident memory, so each measurement has a process of its own.
  module Child
    module_function

    # Runs the block in a child and returns its Hash with :peak_mb, the child's VmHWM
    # when the block returned. An exception in the child is raised again here. Dirty
    # pages are written back first, so that no child pays for an earlier one's writes.
    def run(&)
      system('sync', exception: true)
      reader, writer = IO.pipe
      pid = fork
      report(reader, writer, &) unless pid
      writer.close
      result = Marshal.load(reader.read) # rubocop:disable Security/MarshalLoad
      reader.close
      Process.wait(pid)
      raise "child failed: #{result[:error]}" if result[:error]

      result
    end

    # In the child: sends the outcome of the block to the parent and exits at once,
    # so that no at_exit or ensure of the parent runs here.
    def report(reader, writer, &)
      reader.close
      writer.write(Marshal.dump(outcome(&)))
      writer.close
      exit!(0)
    end

    def outcome
      result = yield
      result.merge(peak_mb: result[:peak_mb] || peak_mb)
    rescue Exception => e # rubocop:disable Lint/RescueException
      { error: "#{e.class}: #{e.message}\n  #{e.backtrace.first(5).join("\n  ")}" }
    end

    # This process's peak resident set size so far, in MB.
    def peak_mb
      File.read('/proc/self/status')[/^VmHWM:\s*(\d+) kB/, 1].to_i / 1024.0
    end

    # The best wall time of +times+ runs of the block, in seconds, and the last value.
    def best_of(times)
      value = nil
      best = Array.new(times) do
        value = nil # Let the last run's value go before the next run starts.
        GC.start
        started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
        value = yield
        Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
      end.min
      [best, value]
    end
  end
end
