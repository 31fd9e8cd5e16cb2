# frozen_string_literal: true

require_relative 'atomically'
require_relative 'gates'
require_relative 'interrupts'
require_relative 'sqlite_wait'

module RubyLLM
  class FileStore # :nodoc:
    module RailsStore
      # Locks a chat for a block, in the database so other processes wait too, and in
      # this process first so its threads queue on a Ruby lock rather than in the
      # database.
      module ChatLock # :nodoc:
        # How long a task that holds a chat tries for one that comes before it.
        OUT_OF_ORDER_WAIT = 1

        module_function

        # Runs the block in a transaction that holds a lock on +chat+'s row. Reentrant:
        # a nested call joins the transaction. Raises RubyLLM::FileStore::Error when the
        # chat's row is gone, and LockError, naming +changing+ (the path of the file the
        # block changes, if one), when SQLite refuses the lock.
        def hold(chat, changing: nil, &block)
          klass = chat.class
          return sharing_connection(klass) { hold(chat, changing:, &block) } if shares_connection?(klass)

          synchronize(*gate_for(klass, chat.id)) do
            Interrupts.with_connection(klass.connection_pool) do |connection|
              SQLiteWait.adopt(connection, klass)
              joined = connection.transaction_open?
              owning(connection) do
                Atomically.run(connection) do
                  lock_row(klass, chat.id, joined:, changing:)
                  yield
                end
              end
            end
          end
        end

        # Whether this fiber shares its database connection with the other fibers of
        # its thread while a Fiber scheduler switches between them: Active Record
        # hands out connections by thread unless the app sets
        # ActiveSupport::IsolatedExecutionState.isolation_level = :fiber (Rails 7.0 on;
        # before, always by thread). The fibers would then run in one transaction.
        def shares_connection?(klass)
          return false unless Fiber.scheduler && !Fiber.current.blocking?
          return false if Gates.held.any? { |key| key.is_a?(Array) && key[0].equal?(klass.connection_pool) }

          !defined?(::ActiveSupport::IsolatedExecutionState) ||
            ::ActiveSupport::IsolatedExecutionState.isolation_level != :fiber
        end

        # Runs the block holding this thread's connection of +klass+'s pool, so the
        # thread's fibers take their chats one at a time, as their one connection can.
        def sharing_connection(klass, &)
          synchronize([klass.connection_pool, Thread.current], "this thread's database connection", &)
        end

        # Runs the block, which writes with +klass+'s connection, holding this process's
        # lock on the database when it is SQLite. The store writes there only inside this,
        # so its threads never wait for each other inside SQLite.
        def writing(klass, &block)
          return yield unless SQLiteWait.sqlite?(klass)

          synchronize(*database_gate(klass), &block)
        end

        # Runs the block; when it begins the transaction (none is open on +connection+),
        # a connection it leaves by an interrupt is dropped from the pool (see
        # Interrupts.dropping_if_cut): Rails lets the interrupt in while a statement is
        # on its way, and the next user of the connection would run inside whatever that
        # statement began. An error of the block's own (a with_lock block's, which
        # Atomically rolled back with interrupts deferred) leaves it in the pool when
        # Rails and the database hold no transaction. Inside a transaction already open,
        # its owner decides.
        def owning(connection, &block)
          return yield if connection.transaction_open?

          Interrupts.dropping_if_cut(connection, any_error: true, &block)
        end

        # The in-process lock, as Gates names it: on SQLite the database's, elsewhere
        # the chat's own.
        def gate_for(klass, id)
          return database_gate(klass) if SQLiteWait.sqlite?(klass)

          name = klass.base_class.name
          [[name, id], "#{name} #{id}"]
        end

        def database_gate(klass)
          [klass.connection_pool, 'the SQLite database']
        end

        # The wait can be interrupted (Timeout.timeout, Thread#raise, Thread#kill) as
        # the caller can be; taking the lock and giving it back cannot, so no
        # interrupt leaves it held.
        def synchronize(key, name, &block)
          Interrupts.deferred do |as_before|
            Gates.enter(key, name, as_before)
            begin
              as_before.call(&block)
            ensure
              Gates.exit(key)
            end
          end
        end

        # PostgreSQL and MySQL lock the row (SELECT ... FOR UPDATE), so writers of one
        # chat queue and writers of others do not. SQLite has no row locks: there a no-op
        # UPDATE of the row takes the database's write lock (see write_lock), and a
        # refusal is a LockError (SQLiteWait.refusing_locked). Inside a
        # transaction already open (+joined+: another chat's lock, or the application's)
        # the row is asked for without waiting in the database (see lock_without_waiting).
        def lock_row(klass, id, joined: false, changing: nil)
          rows = klass.unscoped.where(klass.primary_key => id)
          found = if SQLiteWait.sqlite?(klass)
                    SQLiteWait.refusing_locked("#{klass.name} #{id}", path: changing) { write_row(klass, rows, id) }
                  elsif joined
                    lock_without_waiting(klass, rows, id)
                  else
                    rows.lock.pluck(klass.primary_key).any?
                  end
          raise Error, "#{klass.name} #{id} no longer exists, so its files cannot change" unless found
        rescue ::ActiveRecord::Deadlocked
          raise LockError, "#{klass.name} #{id}'s files are being changed by another task that is waiting for " \
                           'files this task is changing; this change was not made. Try it again.'
        end

        # The no-op UPDATE that takes SQLite's write lock; whether the row is there.
        def write_row(klass, rows, id)
          rows.update_all(klass.primary_key => id).positive?
        end

        # A transaction that holds rows and waits in the database for another can close
        # a circle with another process's that the database breaks by failing one of
        # them whole (MariaDB rolls the whole transaction back). So here the row is asked
        # for with NOWAIT, so that a refusal leaves the transaction as it was,
        # and again after a pause; then LockError. A task that asks for chats in their
        # order (by class name and id) tries for up to Gates::NESTED_WAIT seconds; one that
        # asks for a chat before one it holds, for OUT_OF_ORDER_WAIT: a circle has one
        # of those at least, so it ends soon and the others go on.
        def lock_without_waiting(klass, rows, id)
          wait = out_of_order?(klass, id) ? OUT_OF_ORDER_WAIT : Gates::NESTED_WAIT
          deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + wait
          pause = 0.002
          begin
            # PostgreSQL fails the whole transaction on a refusal, so there the query goes
            # in a savepoint; MySQL and MariaDB undo only the statement, and a savepoint's
            # ROLLBACK TO, sent as a kill unwinds, meets a connection still waiting for the
            # query the kill cut off, whose error would replace the kill.
            nowait = -> { rows.lock('FOR UPDATE NOWAIT').pluck(klass.primary_key).any? }
            # (Not klass.connection: on Rails 7.2 and later it keeps the connection lent to
            # this fiber or thread after the block that took it.)
            mysql = klass.connection_db_config.adapter.to_s.match?(/mysql|trilogy/i)
            # (Rails 7.1 and later hand the transaction to the block: not to the lambda.)
            mysql ? nowait.call : klass.transaction(requires_new: true) { nowait.call }
          rescue ::ActiveRecord::LockWaitTimeout
            raise LockError, busy_too_long(klass, id) if Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline

            LoadInterlock.permit { sleep(pause) }
            pause = [pause * 2, 0.05].min
            retry
          end
        end

        # Whether this thread holds a chat that comes after +klass+ +id+ in the order of
        # class names and ids (as strings, the same in every process).
        def out_of_order?(klass, id)
          asked = [klass.base_class.name, id.to_s]
          Gates.held.any? { |key| key.is_a?(Array) && ([key[0], key[1].to_s] <=> asked) == 1 }
        end

        def busy_too_long(klass, id)
          "#{klass.name} #{id}'s files were being changed by another task while this task held other files; " \
            'this change was not made. Try it again.'
        end

        # On SQLite, takes the database's write lock as the transaction's first statement,
        # with an UPDATE that changes no row. Rails before 7.1 opens deferred
        # transactions, and SQLite fails a transaction that reads and then writes while
        # another connection writes ("database is locked") instead of waiting; a write as
        # the first statement is the one point where it waits (the connection's timeout).
        # Elsewhere it does nothing.
        def write_lock(klass)
          return unless SQLiteWait.sqlite?(klass)

          klass.unscoped.where('1 = 0').update_all(klass.primary_key => nil)
        end
      end
    end
  end
end
