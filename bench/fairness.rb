# frozen_string_literal: true

# How long a tiny document's conversion waits while another store keeps every convert
# worker busy: one memory store ("busy") has 16 threads reading slow HTML pages (each
# new, so each converts) through read_file, more than the pool's workers, while the main
# thread reads tiny new pages of a second store ("quiet") one after another, each timed.
# The pool gives a free worker to the queue (store) with the fewest conversions under
# way, so a tiny read should wait at most one slow conversion in flight. Run by hand
# from the gem's folder after `rake compile`:
#
#   ruby bench/fairness.rb          # 200 tiny reads
#   ruby bench/fairness.rb --quick  # 20 of them, as a smoke run
#
# A slow read's duration includes its wait behind its own store's other 15 threads, so
# one slow conversion is measured first by as many threads as there are workers (each
# gets a worker at once, the CPU shared as when saturated), and estimated again from the
# saturated run's throughput, in case the machine's load changed in between.

$LOAD_PATH.unshift(File.expand_path('../lib', __dir__))
# ruby_llm, which the gem requires, as the specs find it (RUBY_LLM_PATH, else ../shared/gems).
require_relative '../spec/ruby_llm_path'
RubyLLMPath.load!
require 'ruby_llm/file_store'

class FairnessBench
  BUSY_THREADS = 16
  # The core's MAX_WORKERS, which converter_workers should reach.
  WORKERS = 4
  # 1.2M character references: about 0.3 s of one idle core's conversion (the
  # supervisor spec's 3M take about 1 s), so a quick run stays short.
  SLOW_BODY = "<p>#{'&amp;&lt;&#x41;' * 400_000}</p>".freeze
  # Slow reads each calibration thread makes.
  CALIBRATION_READS = 3

  def initialize(argv)
    @tiny_reads = argv.include?('--quick') ? 20 : 200
    @counter = 0
    @lock = Mutex.new
  end

  def run
    conversions = calibrate
    busy = RubyLLM.file_store.memory
    durations = Queue.new
    @stop = false
    threads = Array.new(BUSY_THREADS) { |n| Thread.new { durations << slow_read(busy, n) until @stop } }
    sleep 0.02 until durations.size >= BUSY_THREADS / 2
    running = RubyLLM::FileStore::Native.converter_workers
    before = durations.size
    phase = timed { @tiny = tiny_reads }
    # WORKERS conversions in flight all along: each took WORKERS x phase / completed.
    in_flight = WORKERS * phase / (durations.size - before)
    @stop = true
    threads.each(&:join)
    report(conversions, Array.new(durations.size) { durations.pop }, in_flight, running)
  end

  private

  def timed
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    yield
    Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
  end

  # One read of a slow page written just before, new content each time (the store
  # keeps texts by content), so every read converts.
  def slow_read(store, thread)
    number = @lock.synchronize { @counter += 1 }
    path = "slow-#{thread}.html"
    store.write(path, "<p>before #{number}</p>#{SLOW_BODY}")
    timed do
      text = RubyLLM::FileStore::Tools::ReadFile.new(store).call(path:, limit: 1)
      raise text unless text.include?("before #{number}")
    end
  end

  def calibrate
    store = RubyLLM.file_store.memory
    threads = Array.new(WORKERS) do |n|
      Thread.new { Array.new(CALIBRATION_READS) { slow_read(store, n) } }
    end
    # The first round pays for starting the workers.
    threads.flat_map { |thread| thread.value.drop(1) }
  end

  # A random pause before each read, so reads arrive anywhere in the slow
  # conversions, not just after a worker was freed.
  def tiny_reads
    quiet = RubyLLM.file_store.memory
    read = RubyLLM::FileStore::Tools::ReadFile.new(quiet)
    Array.new(@tiny_reads) do |n|
      sleep(rand * 0.1)
      quiet.write("tiny-#{n}.html", "<p>tiny #{n}</p>")
      timed { raise 'tiny read failed' unless read.call(path: "tiny-#{n}.html").include?("tiny #{n}") }
    end
  end

  def percentile(values, share)
    values.sort[((values.size * share).ceil - 1).clamp(0, values.size - 1)]
  end

  def report(conversions, slow, in_flight, running)
    tiny, conversions, slow = [@tiny, conversions, slow].map { |times| times.map { |time| time * 1000 } }
    puts "#{BUSY_THREADS} busy threads, #{running} convert workers running, #{slow.size} slow reads while saturated"
    puts format('tiny reads (%<n>d): p50 %<p50>.1f ms, p99 %<p99>.1f ms, max %<max>.1f ms',
                n: tiny.size, p50: percentile(tiny, 0.5), p99: percentile(tiny, 0.99), max: tiny.max)
    puts format('one slow conversion (%<n>d, a worker each, before): median %<median>.1f ms, min %<min>.1f ms; ' \
                'while saturated (from throughput): mean %<mean>.1f ms',
                n: conversions.size, median: percentile(conversions, 0.5), min: conversions.min, mean: in_flight * 1000)
    puts format('slow reads while saturated (with their wait for a worker): median %<median>.1f ms, ' \
                'min %<min>.1f ms', median: percentile(slow, 0.5), min: slow.min)
    ratios(percentile(tiny, 0.99), percentile(conversions, 0.5), in_flight * 1000)
  end

  def ratios(p99, conversion, in_flight)
    puts format('p99 tiny / median slow conversion: %<ratio>.2f (p99 <= one slow conversion: %<ok>s); ' \
                '/ mean while saturated: %<mean>.2f',
                ratio: p99 / conversion, ok: p99 <= conversion, mean: p99 / in_flight)
  end
end

FairnessBench.new(ARGV).run
