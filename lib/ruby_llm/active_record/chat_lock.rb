# frozen_string_literal: true

require 'monitor'

module RubyLLM
  module ActiveRecord
    # Locks a chat for a block, in the database so other processes wait too, and in
    # this process first so its threads queue on a Ruby lock rather than in the
    # database driver.
    module ChatLock # :nodoc:
      # Threads wait on one of these per chat; a fixed number of stripes keeps memory
      # flat however many chats a process touches. Two chats sharing a stripe only
      # queue behind each other within this process.
      STRIPES = Array.new(64) { Monitor.new }.freeze

      module_function

      # Runs the block in a transaction that holds a lock on +chat+'s row. Reentrant:
      # a nested call joins the transaction. Raises RubyLLM::FileStore::Error when the
      # chat's row is gone.
      def hold(chat)
        klass = chat.class
        STRIPES[[klass.base_class.name, chat.id].hash % STRIPES.size].synchronize do
          klass.connection_pool.with_connection do
            klass.transaction do
              lock_row(klass, chat.id)
              yield
            end
          end
        end
      end

      # PostgreSQL and MySQL lock the row (SELECT ... FOR UPDATE), so writers of one
      # chat queue and writers of others do not. SQLite has no row locks: there a no-op
      # UPDATE of the row takes the database's write lock (see write_lock).
      def lock_row(klass, id)
        rows = klass.unscoped.where(klass.primary_key => id)
        found = if sqlite?(klass)
                  rows.update_all(klass.primary_key => id).positive?
                else
                  rows.lock.pluck(klass.primary_key).any?
                end
        raise RubyLLM::FileStore::Error, "#{klass.name} #{id} no longer exists, so its files cannot change" unless found
      end

      # On SQLite, takes the database's write lock as the transaction's first statement,
      # with an UPDATE that changes no row. Rails before 7.1 opens deferred
      # transactions, and SQLite fails a transaction that reads and then writes while
      # another process writes ("database is locked") instead of waiting; a write as the
      # first statement is the one point where it waits (the connection's timeout).
      # Elsewhere it does nothing.
      def write_lock(klass)
        return unless sqlite?(klass)

        klass.unscoped.where('1 = 0').update_all(klass.primary_key => nil)
      end

      def sqlite?(klass)
        klass.connection.adapter_name.match?(/sqlite/i)
      end
    end
  end
end
