# frozen_string_literal: true

module RubyLLM
  class FileStore # :nodoc:
    # The lock with_lock takes within this process: reentrant for the fiber that holds
    # it, exclusive between fibers as between threads, and waited on through the
    # Fiber scheduler when there is one.
    #
    # Not a Monitor: Ruby's Mutex and Monitor hand a release to one waiter, and an
    # interrupt (Timeout.timeout, Thread#raise) that lands on that waiter as it wakes
    # ends its wait and the hand-over with it, so the next waiter sleeps for good
    # beside a free lock. Here a release wakes every waiter, the short guard is taken
    # with interrupts deferred, and only the wait itself lets them in.
    class StoreLock
      def initialize
        @guard = Mutex.new
        @freed = ConditionVariable.new
        @owner = nil
        @thread = nil
        @depth = 0
      end

      # Runs the block holding the lock and returns its value.
      def synchronize(&)
        Interrupts.deferred do |as_before|
          enter(as_before)
          begin
            as_before.call(&)
          ensure
            leave
          end
        end
      end

      private

      def enter(as_before)
        @guard.synchronize do
          until take
            refuse_stuck
            as_before.call { @freed.wait(@guard) }
          end
        end
      end

      def take
        return @depth += 1 if @owner.equal?(Fiber.current)
        # A hold left by a thread that no longer runs (in a child forked while a
        # thread of its parent held it) counts as none.
        return false if @owner && @thread.alive?

        @owner = Fiber.current
        @thread = Thread.current
        @depth = 1
      end

      def leave
        @guard.synchronize do
          @depth -= 1
          next if @depth.positive?

          @owner = @thread = nil
          @freed.broadcast
        end
      end

      # Another fiber of this thread holds it, and without a Fiber scheduler (or in a
      # blocking fiber) nothing can resume that fiber while this one waits.
      def refuse_stuck
        return unless @thread.equal?(Thread.current)
        return if Fiber.scheduler && !Fiber.current.blocking?

        raise LockError, "the store's files are being changed by another fiber of this thread, suspended while " \
                         'it changes them (an Enumerator, say); this change was not made. Try it again.'
      end
    end
  end
end
