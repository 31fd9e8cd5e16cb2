# frozen_string_literal: true

require 'io/wait'

# The least a Fiber::Scheduler must do, as Ruby 3.1 asks it (Ruby's own
# test/fiber/scheduler.rb has the same shape): one IO.select loop on the thread that
# set it, which resumes a fiber when its IO is readable, its sleep is over, or another
# fiber or thread unblocks it; Timeout.timeout through timeout_after; and #stop,
# which raises into a waiting fiber as Async's Task#stop does. Enough to show whether
# the gem's native calls let the scheduler's other fibers run, on a Ruby that has no
# Async.
#
#   TinyScheduler.run { Fiber.schedule { sleep 0.1 }; Fiber.schedule { :other } }
class TinyScheduler
  # What #stop raises in a fiber: not a StandardError, as Async::Stop is not, so no
  # rescue of the work's own errors takes it for one.
  class Stop < Exception; end # rubocop:disable Lint/InheritException

  # Runs the block in a thread of its own with a scheduler set, then the scheduler's
  # loop until every fiber it runs has ended; returns the block's value.
  def self.run(&)
    Thread.new do
      Fiber.set_scheduler(new)
      yield
    ensure
      Fiber.set_scheduler(nil) # closes the scheduler, which runs it to the end
    end.value
  end

  def initialize
    # A waiting fiber's wait: its IO (or nil), its deadline (or nil) and whether
    # #unblock may end it. Each wait is a Hash of its own, so a resume meant for an
    # earlier wait never ends a later one.
    @waits = {}.compare_by_identity
    @timers = []
    @stops = []
    @unblocked = []
    @guard = Thread::Mutex.new # #unblock may come from another thread
    @wake, @woken = IO.pipe
  end

  # Raises Stop in +fiber+ where it waits, from the loop.
  def stop(fiber)
    @stops << fiber
    @woken.write_nonblock('.', exception: false)
  end

  # A stopped fiber ends quietly, as a stopped Async task does.
  def fiber(&block)
    Fiber.new(blocking: false) do
      block.call
    rescue Stop
      nil
    end.tap(&:resume)
  end

  # The events asked for once the IO is ready; false when the timeout came first.
  def io_wait(io, events, timeout = nil)
    wait(io:, deadline: timeout && (now + timeout)) == :ready && events
  end

  # ConditionVariable#wait sleeps here too, and its signal comes as #unblock.
  def kernel_sleep(duration = nil)
    wait(deadline: duration && (now + duration), unblockable: true)
    true
  end

  def block(_blocker, timeout = nil)
    wait(deadline: timeout && (now + timeout), unblockable: true)
  end

  def unblock(_blocker, fiber)
    @guard.synchronize { @unblocked << fiber }
    @woken.write_nonblock('.', exception: false)
  end

  def timeout_after(duration, error, message)
    timer = { fiber: Fiber.current, deadline: now + duration, error:, message: }
    @timers << timer
    yield duration
  ensure
    @timers.delete(timer)
  end

  def close
    run until @waits.empty?
  ensure
    [@wake, @woken].each(&:close)
  end

  private

  # Suspends the fiber until the loop resumes it; why it did (:ready, :due or
  # :unblocked).
  def wait(**wait)
    @waits[Fiber.current] = wait
    Fiber.yield
  ensure
    @waits.delete(Fiber.current)
  end

  # One turn: waits for the first IO, deadline or wake-up, then resumes the fibers due.
  def run
    ready, = IO.select([@wake, *@waits.values.filter_map { |wait| wait[:io] }], nil, nil, next_timeout)
    @wake.read_nonblock(64, exception: false) if ready&.include?(@wake)
    raise_due
    due(ready || []).each { |fiber, wait, why| fiber.resume(why) if @waits[fiber].equal?(wait) }
  end

  def next_timeout
    return 0 unless @stops.empty?

    deadline = (@waits.values.filter_map { |wait| wait[:deadline] } + @timers.map { |timer| timer[:deadline] }).min
    deadline && [deadline - now, 0].max
  end

  # The waits that are over, each with why.
  def due(ready)
    unblocked = @guard.synchronize { @unblocked.slice!(0..) }
    @waits.filter_map do |fiber, wait|
      why = over(wait, ready) || (:unblocked if wait[:unblockable] && unblocked.include?(fiber))
      [fiber, wait, why] if why
    end
  end

  def over(wait, ready)
    return :ready if ready.include?(wait[:io])

    :due if wait[:deadline] && wait[:deadline] <= now
  end

  # Stops and expired timeouts, each raised in its fiber if it still waits.
  def raise_due
    @stops.slice!(0..).each { |fiber| fiber.raise(Stop, 'stopped') if @waits.key?(fiber) }
    @timers.select { |timer| timer[:deadline] <= now }.each do |timer|
      @timers.delete(timer)
      timer[:fiber].raise(timer[:error], timer[:message]) if @waits.key?(timer[:fiber])
    end
  end

  def now
    Process.clock_gettime(Process::CLOCK_MONOTONIC)
  end
end
