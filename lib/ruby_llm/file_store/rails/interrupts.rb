# frozen_string_literal: true

require 'English'
require_relative 'adapter_lock'
require_relative 'connection_state'
require_relative 'monitor_entry'
require_relative 'sqlite_wait'

module RubyLLM
  class FileStore # :nodoc:
    module RailsStore
      # Sections that Timeout.timeout, Thread#raise and Thread#kill wait for (taking
      # and giving back a lock, checking a connection out and in, opening one, beginning
      # and ending a transaction, dropping a connection, cleaning up after a write), as
      # FileStore::Interrupts runs them, and what an interrupt leaves of a database
      # connection. Rails' own lock keeps them deferred there too (AdapterLock).
      module Interrupts # :nodoc:
        module_function

        # See FileStore::Interrupts.deferred.
        def deferred(&)
          FileStore::Interrupts.deferred(&)
        end

        # Runs the block with a connection of +pool+ (this thread's, or one checked out
        # for the block), checked out and back in with interrupts deferred: one checked
        # out and never checked in stays with its thread, and a Puma thread lives on.
        # The wait for a free connection is bounded by the pool's checkout_timeout.
        #
        # Rails itself lets exceptions raised into the thread in again while a
        # connection changes hands (the connection's lock takes them at once), so one can
        # stop a checkout or a checkin halfway: the connection stays lent to this thread,
        # or is lent to no one and never made available again. Left that way (by
        # anything but an error of the block's own), this drops both from the pool.
        def with_connection(pool)
          deferred do |as_before|
            used = raised = nil
            returned = false
            begin
              result = pool.with_connection do |connection|
                used = connection
                as_before.call { yield connection }
              rescue Exception => e # rubocop:disable Lint/RescueException
                raised = e
                raise
              end
              returned = true
              result
            ensure
              # (A throw, such as Timeout's on Ruby 3.1, leaves no error to compare.)
              recover(pool, used) unless returned || (!raised.nil? && $ERROR_INFO.equal?(raised))
            end
          end
        end

        # Drops the connections +pool+ lends to this thread besides the one it holds, and
        # +used+ unless another thread has it. +used+ leaves the pool under the pool's
        # monitor, so no thread takes it meanwhile, and is closed after: closing takes
        # the connection's lock, which a checkin holds while it waits for the pool's
        # monitor (the other order would be a deadlock).
        def recover(pool, used)
          drop_strays(pool)
          return unless used

          removed = deferred do
            pool.synchronize do
              next false unless ours?(used.owner) && pool.connections.include?(used)

              pool.remove(used)
              true
            end
          end
          close(used) if removed
        rescue StandardError
          nil # the pool takes back a dead thread's connections itself; this is only sooner
        end

        # Whether a connection lent to +owner+ is this task's to drop: lent to no one, to
        # this thread, or to this fiber.
        def ours?(owner)
          owner.nil? || owner.equal?(Thread.current) || owner.equal?(Fiber.current)
        end

        # Drops the connections +pool+ lends to this thread besides the one it holds.
        def drop_strays(pool)
          held = pool.active_connection?
          pool.connections.each do |connection|
            owner = connection.owner
            next unless owner.equal?(Thread.current) || owner.equal?(Fiber.current)
            next if connection.equal?(held)

            throw_away(connection)
          end
        end

        # Drops +connection+ from its pool and closes it, with interrupts deferred: one
        # stopped between the two would be neither lent nor closed, open until the
        # process exits (on SQLite, inside the write transaction it held, which fails
        # every other writer of the database). A SQLite connection is closed even when a
        # statement an interrupt left unfinished holds it (SQLiteWait.close).
        def throw_away(connection)
          deferred do
            raw = SQLiteWait.raw(connection)
            begin
              connection.throw_away!
            ensure
              SQLiteWait.close(raw) if raw
            end
          end
        end

        # Closes +connection+, already out of its pool, as throw_away does.
        def close(connection)
          deferred do
            raw = SQLiteWait.raw(connection)
            begin
              connection.disconnect!
            ensure
              SQLiteWait.close(raw) if raw
            end
          end
        end

        # Runs the block with +connection+, which goes on to its next user only when
        # the block left it fit (ConnectionState): ended by its value or an error the
        # store or the database raised, holding the transactions it found. Left by an
        # interrupt (Timeout.timeout, a throw, an application's error raised into the
        # thread, Thread#kill) it may be cut off mid-query (mysql2 then refuses every
        # later query) or hold a transaction Rails has lost count of, so it is dropped
        # from the pool, which rolls back whatever the database held. +any_error+: see
        # ConnectionState#fit_after?.
        def dropping_if_cut(connection, any_error: false)
          state = ConnectionState.new(connection)
          fit = false
          begin
            result = yield
            fit = state.fit_after?(nil)
            result
          rescue StandardError => e
            fit = state.fit_after?(e, any_error:)
            raise
          ensure
            # A thread being killed may have an error of the cleanup it runs replace
            # the kill (a query on a connection the kill cut off): still not fit.
            throw_away(connection) unless fit && Thread.current.status != 'aborting'
          end
        end
      end
    end
  end
end
