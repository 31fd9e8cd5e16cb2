# frozen_string_literal: true

require_relative 'sqlite_wait'

module RubyLLM
  class FileStore # :nodoc:
    module RailsStore
      # This process's locks on chats: one per chat while a task holds or waits for
      # it, and none once no task does, so unrelated chats never share one and memory
      # follows what is in use. A task is a fiber: a lock is exclusive between the
      # fibers of one thread (Async's tasks, Falcon's requests, an Enumerator) as
      # between threads, and reentrant for the fiber that holds it, so a fiber
      # suspended inside (a scheduler's switch, an Enumerator's +next+) lets no other
      # fiber in. Under a Fiber scheduler the wait yields to the scheduler.
      #
      # A task that would wait for a chat's lock held by a task that waits, directly
      # or through others, for a lock this task holds (two chats nested in opposite
      # orders) would wait forever: it is refused at once with a LockError instead, as
      # is a fiber that would wait for another fiber of its own thread that nothing
      # can resume meanwhile (no scheduler, or a blocking fiber). A task that holds a
      # chat's lock and waits for another's waits at most NESTED_WAIT seconds, so a
      # cycle through another process ends too.
      #
      # Taking and giving back run with interrupts deferred by the caller; the wait
      # alone lets them in (the +as_before+ proc of Interrupts.deferred).
      module Gates # :nodoc:
        # The longest a thread holding a chat's lock waits for another chat's.
        NESTED_WAIT = 10

        # +owner+ is the fiber that holds it, +thread+ that fiber's thread.
        Gate = Struct.new(:owner, :depth, :waiters, :thread)

        GUARD = Mutex.new
        FREED = ConditionVariable.new
        GATES = Hash.new(nil) # key => Gate, while held or waited for
        WAITING = {}.compare_by_identity # fiber => the key it waits for
        HELD = {}.compare_by_identity # fiber => how many gates it holds

        module_function

        # Takes the lock named +key+ (a chat's, or a SQLite database's), waiting while
        # another task holds it. +name+ says whose it is in a refusal.
        def enter(key, name, as_before)
          taken = GUARD.synchronize { take(key, GATES[key] ||= Gate.new(nil, 0, 0)) }
          # Waiting with Rails' code loading permitted: the holder may need to autoload
          # (in development), and would otherwise wait for this task forever.
          LoadInterlock.permit { GUARD.synchronize { wait(key, name, as_before) } } unless taken
        end

        # Takes +gate+ if it is free or this fiber's; false when another task holds it.
        def take(key, gate)
          return gate.depth += 1 if gate.owner.equal?(Fiber.current)
          return false if held_by_other?(gate)

          GATES[key] = gate
          gate.owner = Fiber.current
          gate.thread = Thread.current
          gate.depth = 1
          HELD[Fiber.current] = HELD.fetch(Fiber.current, 0) + 1
        end

        # The keys of the locks this fiber holds.
        def held
          # Asked with interrupts allowed: taken with them deferred (Interrupts.guarded).
          FileStore::Interrupts.guarded(GUARD) { GATES.select { |_, gate| gate.owner.equal?(Fiber.current) }.keys }
        end

        # Gives back one hold of the lock named +key+, waking the tasks that wait.
        def exit(key)
          GUARD.synchronize do
            gate = GATES.fetch(key)
            gate.depth -= 1
            next if gate.depth.positive?

            gate.owner = gate.thread = nil
            held = HELD.fetch(Fiber.current, 1) - 1
            held.zero? ? HELD.delete(Fiber.current) : HELD[Fiber.current] = held
            GATES.delete(key) if gate.waiters.zero?
            FREED.broadcast
          end
        end

        # Another task's hold; one left by a thread that no longer runs (this is a
        # child forked while a thread of its parent held it) counts as none.
        def held_by_other?(gate)
          !gate.owner.nil? && gate.thread.alive?
        end

        def wait(key, name, as_before)
          gate = GATES[key] ||= Gate.new(nil, 0, 0)
          nested = holds_chat?
          deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + NESTED_WAIT
          gate.waiters += 1
          WAITING[Fiber.current] = key
          until take(key, gate)
            refuse_cycle(gate, name)
            refuse_stuck(gate, name)
            left = nested && time_left(deadline, name)
            as_before.call { FREED.wait(GUARD, left || nil) }
          end
        ensure
          WAITING.delete(Fiber.current)
          gate.waiters -= 1
          GATES.delete(key) if gate.owner.nil? && gate.waiters.zero?
        end

        # Whether this fiber holds a lock other than its thread's connection (ChatLock's
        # key [pool, thread], always taken first and by no other thread, so no cycle
        # runs through it and a wait beside it is not a nested one).
        def holds_chat?
          HELD.key?(Fiber.current) &&
            GATES.any? { |key, gate| gate.owner.equal?(Fiber.current) && !(key.is_a?(Array) && key.last.is_a?(Thread)) }
        end

        # Raises LockError when the holder of +gate+ waits, through any chain of
        # holders, for a lock this fiber holds.
        def refuse_cycle(gate, name)
          owner = gate.owner
          seen = {}.compare_by_identity
          while owner && !seen.key?(owner)
            raise LockError, cycle_message(name) if owner.equal?(Fiber.current)

            seen[owner] = true
            waited = WAITING[owner]
            owner = waited && GATES[waited]&.owner
          end
        end

        # Raises LockError when +gate+ is held by another fiber of this thread and this
        # wait cannot let it run: without a Fiber scheduler (or in a blocking fiber) the
        # thread would sleep here for good, as Mutex refuses with a ThreadError.
        def refuse_stuck(gate, name)
          return unless gate.thread.equal?(Thread.current)
          return if Fiber.scheduler && !Fiber.current.blocking?

          raise LockError, "#{name}'s files are being changed by another fiber of this thread, suspended while " \
                           'it changes them (an Enumerator, say); this change was not made. Try it again.'
        end

        def cycle_message(name)
          "#{name}'s files are being changed by another task that is waiting for files this task is " \
            'changing; neither could finish, so this change was not made. Try it again.'
        end

        # The seconds left before +deadline+; raises LockError once none are.
        def time_left(deadline, name)
          left = deadline - Process.clock_gettime(Process::CLOCK_MONOTONIC)
          return left if left.positive?

          raise LockError, "#{name}'s files were being changed by another task for over #{NESTED_WAIT} s " \
                           'while this task held other files; this change was not made. Try it again.'
        end
      end
    end
  end
end
