# frozen_string_literal: true

require 'io/wait'

module RubyLLM
  class FileStore # :nodoc:
    # The one place where the stores' locks change hands. Timeout.timeout,
    # Thread#raise and Thread#kill can land at any line; taking and giving back a lock
    # happen with them deferred (Thread.handle_interrupt), and only the waiting and
    # the caller's own work let them in, as Ruby's Monitor and connection_pool do. So
    # an interrupt stops a wait or the work, and leaves nothing held: no lock taken
    # and not yet kept, no lock kept and never given back.
    #
    # Inside a section the caller's work runs with interrupts as the caller had them:
    # taken at once at the outermost, still deferred when the section is itself inside
    # another (a purge run by a commit's callbacks), so no inner section lets an
    # interrupt into an outer one.
    module Interrupts # :nodoc:
      # Thread#[] is the fiber's own. The native side reads it too (nogvl/offload.rs):
      # under a Fiber scheduler, work asked for inside a section stays on the thread.
      KEY = :ruby_llm_file_store_deferring
      # Pauses between tries for a busy lock grow to this, so a waiter notices a free
      # lock soon without spinning.
      LONGEST_PAUSE = 0.01
      # The mask that defers every interrupt, made once: a section is entered often.
      DEFERRED = { Object => :never }.freeze
      private_constant :KEY, :DEFERRED

      module_function

      # Runs the block with interrupts deferred and returns its value. The block is
      # given a proc that runs a block of its own with interrupts as they were.
      #
      #   Interrupts.deferred { |as_before| take; begin as_before.call { work } ensure give_back end }
      def deferred
        outer = Thread.current[KEY]
        Thread.current[KEY] = true
        Thread.handle_interrupt(DEFERRED) { yield(outer ? method(:inside) : method(:allowed)) }
      ensure
        Thread.current[KEY] = outer
      end

      # Runs the block holding +mutex+, a lock held for a moment and never across a
      # wait, with interrupts deferred: Ruby hands a released Mutex to one waiter, and
      # an interrupt landing on it as it wakes would leave the next waiter asleep
      # beside a free lock (StoreLock says more).
      def guarded(mutex, &)
        Thread.handle_interrupt(DEFERRED) { mutex.synchronize(&) }
      end

      # Whether this thread is inside a section, where interrupts wait.
      def deferring?
        Thread.current[KEY] == true
      end

      # Waits through the Fiber scheduler until +descriptor+, the native side's end
      # of a socket pair that it owns, has a byte to read: its work is done. Whatever
      # stops the fiber meanwhile is raised here, and the native side stops the work.
      def wait_for_native(descriptor)
        io = IO.for_fd(descriptor, autoclose: false)
        io.wait_readable
      ensure
        io&.close
      end

      # Runs the block holding what +take+ returns, and gives it back with +give_back+
      # however the block ends. +take+ tries without waiting and returns nil or false
      # while the lock is busy; between tries this pauses with interrupts allowed. Both
      # run with interrupts deferred, so no interrupt falls between a lock taken and
      # the block that gives it back.
      #
      #   Interrupts.holding(-> { native.try_lock }, :release.to_proc) { work }
      def holding(take, give_back)
        deferred do |as_before|
          held = acquire(take, as_before)
          begin
            as_before.call { yield held }
          ensure
            give_back.call(held)
          end
        end
      end

      def acquire(take, as_before)
        pause = 0.0005
        loop do
          held = take.call
          return held if held

          as_before.call { sleep(pause) }
          pause = [pause * 2, LONGEST_PAUSE].min
        end
      end

      def inside(&block)
        block.call
      end

      def allowed(&block)
        Thread.current[KEY] = false
        Thread.handle_interrupt(Object => :immediate, &block)
      ensure
        Thread.current[KEY] = true
      end
    end
  end
end
