# frozen_string_literal: true

require 'monitor'
require_relative 'atomically'
require_relative 'interrupts'
require_relative 'sqlite_wait'

module RubyLLM
  class FileStore # :nodoc:
    module RailsStore
      # Locks a chat for a block, in the database so other processes wait too, and in
      # this process first so its threads queue on a Ruby lock rather than in the
      # database.
      module ChatLock # :nodoc:
        # Threads wait on one of these per chat; a fixed number of stripes keeps memory
        # flat however many chats a process touches. Two chats sharing a stripe only
        # queue behind each other within this process.
        STRIPES = Array.new(64) { Monitor.new }.freeze
        # On SQLite, one per database (connection pool): SQLite has one writer at a time.
        DATABASES = {}.compare_by_identity
        GUARD = Mutex.new

        module_function

        # Runs the block in a transaction that holds a lock on +chat+'s row. Reentrant:
        # a nested call joins the transaction. Raises RubyLLM::FileStore::Error when the
        # chat's row is gone.
        def hold(chat)
          klass = chat.class
          synchronize(monitor_for(klass, chat.id)) do
            klass.connection_pool.with_connection do |connection|
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

          synchronize(database_monitor(klass), &block)
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

        # The in-process lock: on SQLite the database's, elsewhere the chat's stripe.
        def monitor_for(klass, id)
          return database_monitor(klass) if SQLiteWait.sqlite?(klass)

          STRIPES[[klass.base_class.name, id].hash % STRIPES.size]
        end

        def database_monitor(klass)
          pool = klass.connection_pool
          GUARD.synchronize { DATABASES[pool] ||= Monitor.new }
        end

        # Waiting happens with Rails' code loading permitted: a thread holding the lock
        # may need to autoload (in development), and a waiting request thread would
        # otherwise keep it from doing so forever.
        #
        # The wait can be interrupted (Timeout.timeout, Thread#kill) as the caller can
        # be; between taking the lock and the block that gives it back nothing can be,
        # so no interrupt leaves it held.
        def synchronize(monitor, &block)
          Interrupts.deferred do |as_before|
            as_before.call { LoadInterlock.enter(monitor) }
            begin
              as_before.call(&block)
            ensure
              monitor.exit
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
