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
        module_function

        # Runs the block in a transaction that holds a lock on +chat+'s row. Reentrant:
        # a nested call joins the transaction. Raises RubyLLM::FileStore::Error when the
        # chat's row is gone.
        def hold(chat)
          klass = chat.class
          synchronize(*gate_for(klass, chat.id)) do
            Interrupts.with_connection(klass.connection_pool) do |connection|
              SQLiteWait.adopt(connection, klass)
              owning(connection) do
                Atomically.run(connection) do
                  lock_row(klass, chat.id)
                  yield
                end
              end
            end
          end
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
        # statement began. Inside a transaction already open, its owner decides.
        def owning(connection, &block)
          return yield if connection.transaction_open?

          Interrupts.dropping_if_cut(connection, &block)
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
        # UPDATE of the row takes the database's write lock (see write_lock).
        def lock_row(klass, id)
          rows = klass.unscoped.where(klass.primary_key => id)
          found = if SQLiteWait.sqlite?(klass)
                    rows.update_all(klass.primary_key => id).positive?
                  else
                    rows.lock.pluck(klass.primary_key).any?
                  end
          raise Error, "#{klass.name} #{id} no longer exists, so its files cannot change" unless found
        rescue ::ActiveRecord::Deadlocked, ::ActiveRecord::LockWaitTimeout
          # Another process holds this chat and waits for one this task holds: the
          # database broke the cycle here.
          raise LockError, "#{klass.name} #{id}'s files are being changed by another task that is waiting for " \
                           'files this task is changing; this change was not made. Try it again.'
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
