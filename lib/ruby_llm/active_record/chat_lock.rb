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
      # UPDATE takes the database's write lock as the transaction's first statement,
      # the one point where SQLite waits (the connection's timeout) instead of failing
      # with "database is locked" when another process holds it.
      def lock_row(klass, id)
        rows = klass.unscoped.where(klass.primary_key => id)
        found = if klass.connection.adapter_name.match?(/sqlite/i)
                  rows.update_all(klass.primary_key => id).positive?
                else
                  rows.lock.pluck(klass.primary_key).any?
                end
        raise RubyLLM::FileStore::Error, "#{klass.name} #{id} no longer exists, so its files cannot change" unless found
      end
    end
  end
end
