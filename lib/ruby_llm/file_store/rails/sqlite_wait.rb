# frozen_string_literal: true

require_relative 'adapter_handle'
require_relative 'sqlite_statements'

module RubyLLM
  class FileStore # :nodoc:
    module RailsStore
      # How a SQLite connection waits for a database another connection is writing.
      #
      # Active Record gives a SQLite connection its +timeout+ as SQLite's busy timeout,
      # which the sqlite3 gem waits out without releasing Ruby's global lock: one thread
      # waiting for the database freezes every thread of the process, the one holding the
      # database included, so the wait always runs to the timeout and ends in
      # SQLite3::BusyException. Puma's threads and the :async Active Job adapter's share
      # one process, so this is where they meet. Here the connection waits the same
      # +timeout+ in a busy handler that sleeps in Ruby, letting the holder finish, and
      # lets Rails load or reload code meanwhile (as Rails' own waits do), so a thread
      # that autoloads while holding the database is not stuck behind the waiter.
      #
      # The handler is Ruby called from inside SQLite's C code, so an exception raised
      # there (Thread#raise, Timeout.timeout with an error class of the application's)
      # would unwind through SQLite and leave the connection's mutex locked, freezing
      # the next thread to use it. So every call into SQLite that may wait runs with
      # interrupts deferred (Deferred below), and the handler gives up the wait as
      # soon as an interrupt is pending: the statement fails with SQLITE_BUSY as
      # SQLite returns it, and the interrupt is raised once the call has returned.
      module SQLiteWait
        # Sleeps between tries grow to this, so a waiter notices a free database soon
        # without spinning.
        LONGEST_SLEEP = 0.005

        # Replaces busy_timeout in every SQLite connection Active Record opens.
        module Adapter
          private

          def configure_connection
            super
            SQLiteWait.install(AdapterHandle.raw(self), @config[:timeout])
          end
        end

        # The calls into the sqlite3 gem's C code during which SQLite may call the
        # busy handler (preparing a statement, stepping it, running a batch), run with
        # interrupts deferred. They hold Ruby's global lock throughout anyway, so only
        # the handler's Ruby ever saw an interrupt in them.
        module Deferred
          # SQLite3::Statement's.
          module Statement
            def initialize(...)
              Thread.handle_interrupt(Object => :never) { super }
            end

            def step
              Thread.handle_interrupt(Object => :never) { super }
            end
          end

          # SQLite3::Database's.
          module Database
            private

            def exec_batch(...)
              Thread.handle_interrupt(Object => :never) { super }
            end
          end
        end

        module_function

        # Makes SQLite3Adapter use the handler, now or once it loads.
        def hook!
          return if @hooked || !defined?(::ActiveSupport.on_load)

          @hooked = true
          ::ActiveSupport.on_load(:active_record_sqlite3adapter) do
            prepend(SQLiteWait::Adapter)
            SQLiteWait.defer_waits!
          end
        end

        # Defers interrupts in the sqlite3 gem's calls that may wait (see Deferred).
        def defer_waits!
          return if ::SQLite3::Statement <= Deferred::Statement

          SQLiteStatements.install!
          ::SQLite3::Statement.prepend(Deferred::Statement)
          ::SQLite3::Database.prepend(Deferred::Database) if ::SQLite3::Database.private_method_defined?(:exec_batch)
        end

        # Gives +connection+ (an Active Record connection of +klass+'s pool) the handler
        # if it was opened before the hook was in place.
        def adopt(connection, klass)
          return unless sqlite?(klass)

          defer_waits!
          raw = connection.raw_connection
          install(raw, klass.connection_pool.db_config.configuration_hash[:timeout]) unless
            raw.instance_variable_get(:@ruby_llm_file_store_wait)
        end

        # Runs the block, the write that takes the database for +name+'s files (the
        # first of its transaction); SQLite refusing it ("database is locked") raises
        # LockError, which the model reads as an Error:, in place of the driver's error,
        # naming +path+ when the change is to one file (an application calling the
        # store has no other way to tell which of its changes was not made).
        # Inside a transaction the application began and read in first, SQLite refuses
        # at once once another connection has written since that read, for no wait
        # would help (Rails before 8.0 begins deferred transactions); otherwise only
        # after the connection's timeout.
        def refusing_locked(name, path: nil)
          yield
        rescue ::ActiveRecord::StatementInvalid => e
          raise unless locked?(e)

          raise LockError, "another task is changing #{name}'s files, so the SQLite database was locked; " \
                           "#{path ? "the change to #{path}" : 'this change'} was not made. Try it again."
        end

        # Whether +error+ is, or was caused by, SQLite's "database is locked".
        def locked?(error)
          return false unless defined?(::SQLite3::BusyException)

          error = error.cause until error.nil? || error.is_a?(::SQLite3::BusyException)
          !error.nil?
        end

        # The SQLite3::Database of +connection+, an Active Record connection, if it is
        # SQLite and opened; nil otherwise (never opening one).
        def raw(connection)
          raw = AdapterHandle.raw(connection)
          raw if defined?(::SQLite3::Database) && raw.is_a?(::SQLite3::Database)
        end

        # Closes +raw+ (a SQLite3::Database) if Rails' disconnect! left it open: it
        # ignores a close that fails, and may have been stopped before it.
        def close(raw)
          raw.close unless raw.closed?
        rescue StandardError
          nil
        end

        def sqlite?(klass)
          klass.connection_pool.db_config.adapter.to_s.match?(/sqlite/i)
        end

        # Sets on +raw+ (a SQLite3::Database) a busy handler that waits up to +timeout+
        # milliseconds, sleeping in Ruby, and no longer once an interrupt is pending.
        # Without a timeout, the connection is left as configured.
        def install(raw, timeout)
          milliseconds = Integer(timeout.to_s, exception: false)
          return unless milliseconds && raw.respond_to?(:busy_handler)

          raw.instance_variable_set(:@ruby_llm_file_store_wait, true)
          limit = milliseconds / 1000.0
          started = nil
          raw.busy_handler do |count|
            now = Process.clock_gettime(Process::CLOCK_MONOTONIC)
            started = now if count.zero? || started.nil?
            next false if now - started >= limit || Thread.pending_interrupt?

            pause([0.0005 * (count + 1), LONGEST_SLEEP, limit - (now - started)].min)
            true
          end
        end

        def pause(seconds)
          LoadInterlock.permit { sleep(seconds) }
        end
      end

      # Rails' code-loading lock: a thread that waits while it could be holding what a
      # loading thread needs lets loading proceed meanwhile.
      module LoadInterlock # :nodoc:
        module_function

        def permit(&block)
          interlock = defined?(::ActiveSupport::Dependencies.interlock) && ::ActiveSupport::Dependencies.interlock
          interlock ? interlock.permit_concurrent_loads(&block) : yield
        end

        # Enters +monitor+, waiting (if it must) with loading permitted.
        def enter(monitor)
          permit { monitor.enter } unless monitor.try_enter
        end
      end
    end
  end
end
