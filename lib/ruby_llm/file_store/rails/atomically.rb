# frozen_string_literal: true

require_relative 'interrupts'

module RubyLLM
  class FileStore # :nodoc:
    module RailsStore
      # A transaction that commits only when its block returns, and rolls back on every
      # other way out: an exception, and also a throw (what Timeout.timeout is on Ruby
      # 3.1), a break or a return, and Thread#kill. Rails 6.1 and 7.2 commit a
      # transaction a throw leaves, so this one is begun and ended here.
      #
      # Thread#kill waits while the transaction begins, commits or rolls back. Rails
      # lets Timeout's interrupt in even there (its connection lock takes interrupts
      # again), so each step also checks, on every way out, that the database and Rails
      # agree: a transaction begun or committed halfway is rolled back, and a
      # connection that cannot roll back is dropped, which rolls it back in the
      # database.
      module Atomically # :nodoc:
        module_function

        # Runs the block in a new transaction on +connection+; inside a transaction
        # already open (the application's, or an outer one) the block joins it, and
        # that one decides.
        def run(connection, &block)
          return yield if connection.transaction_open?

          # A transaction an interrupt left open in the database, unknown to Rails (one
          # Rails began lazily and was stopped in), is abandoned work: rolled back first.
          connection.rollback_db_transaction if open_in_database?(connection)
          begun = finished = false
          Interrupts.deferred do |as_before|
            # Begun at once, not lazily at the first statement, so the one point where
            # the BEGIN and Rails' note of it can come apart is here.
            connection.begin_transaction(joinable: true, _lazy: false)
            begun = true
            as_before.call(&block).tap { finished = true }
          ensure
            finish(connection, begun:, finished:)
          end
        rescue ::ActiveRecord::Rollback
          nil
        end

        def finish(connection, begun:, finished:)
          if finished
            commit(connection)
          elsif begun || connection.transaction_open?
            dropping(connection) { connection.rollback_transaction }
          else
            # Stopped while beginning: the database may hold a transaction Rails has
            # no note of.
            Interrupts.throw_away(connection)
          end
        end

        # Commits. A commit that fails or is stopped halfway is rolled back only when
        # the database still holds the transaction: one the database committed must
        # not run rollback callbacks (they would purge blobs the committed rows use).
        # Where the database cannot say, the connection is dropped, which rolls back
        # whatever it had not committed. The store tidies the blobs either way.
        def commit(connection)
          transaction = connection.current_transaction
          committed = false
          connection.commit_transaction
          committed = true
        ensure
          unless committed || transaction.state.completed?
            case open_in_database?(connection)
            when true then dropping(connection) { connection.rollback_transaction(transaction) }
            when nil then Interrupts.throw_away(connection)
            end
          end
        end

        # Whether the database holds a transaction on +connection+: PostgreSQL and
        # SQLite say; nil for a database that does not.
        def open_in_database?(connection)
          raw = connection.raw_connection
          return postgresql_open?(raw) if defined?(PG::Connection) && raw.is_a?(PG::Connection)
          return raw.transaction_active? if raw.respond_to?(:transaction_active?)

          nil
        rescue StandardError
          nil
        end

        # A statement an interrupt left in flight (a COMMIT the server may already have
        # carried out) makes PostgreSQL answer "active", which says nothing of the
        # transaction; its result is waited for first, so a committed transaction is
        # not then rolled back, with the rollback callbacks purging blobs its rows use.
        def postgresql_open?(raw)
          raw.get_last_result if raw.transaction_status == PG::PQTRANS_ACTIVE
          status = raw.transaction_status
          return nil if [PG::PQTRANS_ACTIVE, PG::PQTRANS_UNKNOWN].include?(status)

          status != PG::PQTRANS_IDLE
        end

        # Runs the rollback in the block; a connection that cannot roll back (a
        # statement cut off halfway) is dropped from the pool instead, and its database
        # rolls back as it closes.
        def dropping(connection)
          yield
        rescue Exception # rubocop:disable Lint/RescueException
          Interrupts.throw_away(connection)
        end
      end
    end
  end
end
