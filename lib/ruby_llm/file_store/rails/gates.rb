# frozen_string_literal: true

require_relative 'sqlite_wait'

module RubyLLM
  class FileStore # :nodoc:
    module RailsStore
      # This process's locks on chats: one per chat while a thread holds or waits for
      # it, and none once no thread does, so unrelated chats never share one and memory
      # follows what is in use. Reentrant for the thread that holds it.
      #
      # A thread that would wait for a chat's lock held by a thread that waits, directly
      # or through others, for a lock this thread holds (two chats nested in opposite
      # orders) would wait forever: it is refused at once with a LockError instead, and
      # a thread that holds a chat's lock and waits for another's waits at most
      # NESTED_WAIT seconds, so a cycle through another process ends too.
      #
      # Taking and giving back run with interrupts deferred by the caller; the wait
      # alone lets them in (the +as_before+ proc of Interrupts.deferred).
      module Gates # :nodoc:
        # The longest a thread holding a chat's lock waits for another chat's.
        NESTED_WAIT = 10

        Gate = Struct.new(:owner, :depth, :waiters)

        GUARD = Mutex.new
        FREED = ConditionVariable.new
        GATES = Hash.new(nil) # key => Gate, while held or waited for
        WAITING = {}.compare_by_identity # thread => the key it waits for
        HELD = {}.compare_by_identity # thread => how many gates it holds

        module_function

        # Takes the lock named +key+ (a chat's, or a SQLite database's), waiting while
        # another thread holds it. +name+ says whose it is in a refusal.
        def enter(key, name, as_before)
          taken = GUARD.synchronize { take(key, GATES[key] ||= Gate.new(nil, 0, 0)) }
          # Waiting with Rails' code loading permitted: the holder may need to autoload
          # (in development), and would otherwise wait for this thread forever.
          LoadInterlock.permit { GUARD.synchronize { wait(key, name, as_before) } } unless taken
        end

        # Takes +gate+ if it is free or this thread's; false when another thread holds it.
        def take(key, gate)
          return gate.depth += 1 if gate.owner.equal?(Thread.current)
          return false if held_by_other?(gate)

          GATES[key] = gate
          gate.owner = Thread.current
          gate.depth = 1
          HELD[Thread.current] = HELD.fetch(Thread.current, 0) + 1
        end

        # The keys of the locks this thread holds.
        def held
          GUARD.synchronize { GATES.select { |_, gate| gate.owner.equal?(Thread.current) }.keys }
        end

        # Gives back one hold of the lock named +key+, waking the threads that wait.
        def exit(key)
          GUARD.synchronize do
            gate = GATES.fetch(key)
            gate.depth -= 1
            next if gate.depth.positive?

            gate.owner = nil
            held = HELD.fetch(Thread.current, 1) - 1
            held.zero? ? HELD.delete(Thread.current) : HELD[Thread.current] = held
            GATES.delete(key) if gate.waiters.zero?
            FREED.broadcast
          end
        end

        # Another thread's hold; one left by a thread that no longer runs (this is a
        # child forked while a thread of its parent held it) counts as none.
        def held_by_other?(gate)
          !gate.owner.nil? && gate.owner.alive?
        end

        def wait(key, name, as_before)
          gate = GATES[key] ||= Gate.new(nil, 0, 0)
          nested = HELD.key?(Thread.current)
          deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + NESTED_WAIT
          gate.waiters += 1
          WAITING[Thread.current] = key
          until take(key, gate)
            refuse_cycle(gate, name)
            left = nested && time_left(deadline, name)
            as_before.call { FREED.wait(GUARD, left || nil) }
          end
        ensure
          WAITING.delete(Thread.current)
          gate.waiters -= 1
          GATES.delete(key) if gate.owner.nil? && gate.waiters.zero?
        end

        # Raises LockError when the holder of +gate+ waits, through any chain of
        # holders, for a lock this thread holds.
        def refuse_cycle(gate, name)
          owner = gate.owner
          seen = {}.compare_by_identity
          while owner && !seen.key?(owner)
            raise LockError, cycle_message(name) if owner.equal?(Thread.current)

            seen[owner] = true
            waited = WAITING[owner]
            owner = waited && GATES[waited]&.owner
          end
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
