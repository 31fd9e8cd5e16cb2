# frozen_string_literal: true

require_relative 'adapter_handle'

module RubyLLM
  class FileStore # :nodoc:
    module RailsStore
      # Whether a database connection is fit to hand on after a block of the store's.
      #
      # An exception raised into the thread (Thread#raise with an application's own
      # StandardError, as Rack::Timeout raises, or Timeout.timeout with one) lands
      # inside Active Record's own bookkeeping as readily as in a query: Rails 6.1
      # pushes a transaction on its stack a moment before the method that would pop it
      # knows of it, and notes a BEGIN or pops a transaction a moment before or after
      # the database hears of it. Rails and the database then disagree about the
      # transaction, and the next user of the connection (the pool lends it to any
      # thread) runs inside abandoned work: its BEGIN joins it (PostgreSQL) or commits
      # it (MySQL), or nothing it writes is ever committed. So the connection is handed
      # on only when the block ended with its value or with an error the store or the
      # database raised, and Rails and (where it says) the database hold the
      # transactions the block found: otherwise it is dropped, which rolls back
      # whatever the database held.
      class ConnectionState # :nodoc:
        def initialize(connection)
          @connection = connection
          @depth = connection.open_transactions
        end

        # Whether the connection may go on to its next user after the block ended with
        # +error+ (nil: its value). +any_error+: the block's transaction was begun and
        # rolled back by the store with interrupts deferred (ChatLock.owning), so an
        # error of the application's own ended nothing halfway, and the transactions
        # left decide.
        def fit_after?(error, any_error: false)
          (error.nil? || any_error || ConnectionState.own_error?(error)) && as_found?
        end

        # Whether Rails holds as many transactions as the block found and, where it
        # found none, the database holds none either: PostgreSQL and SQLite say (not
        # waiting for a statement an interrupt left in flight); MySQL and MariaDB
        # cannot, without a query.
        def as_found?
          return false unless @connection.open_transactions == @depth

          @depth.positive? || !ConnectionState.open_in_database?(@connection)
        end

        class << self
          # Whether +error+, and every error that caused it, is one the store, Active
          # Record, Active Storage or the database driver raised as an answer: not an
          # interrupt (a Timeout, an application's error raised into the thread) that
          # may have cut a statement or Rails' bookkeeping halfway, nor a lost connection.
          def own_error?(error)
            seen = 0
            while error && (seen += 1) < 16
              return false unless answer?(error)

              error = error.cause
            end
            true
          end

          # Whether the database holds a transaction on +connection+ or is still busy
          # with a statement: false where it cannot say.
          def open_in_database?(connection)
            raw = AdapterHandle.raw(connection)
            if defined?(::PG::Connection) && raw.is_a?(::PG::Connection)
              raw.transaction_status != ::PG::PQTRANS_IDLE
            elsif raw.respond_to?(:transaction_active?)
              raw.transaction_active?
            else
              false
            end
          rescue StandardError
            true
          end

          private

          def answer?(error)
            return false if lost_connection?(error)

            answer_classes.any? { |klass| error.is_a?(klass) }
          end

          def lost_connection?(error)
            AdapterHandle.loaded('ActiveRecord::ConnectionNotEstablished', 'ActiveRecord::ConnectionFailed')
                         .any? { |klass| error.is_a?(klass) }
          end

          # (Looked up each time: a driver may be loaded after the store.)
          def answer_classes
            AdapterHandle.loaded(*%w[RubyLLM::Error RubyLLM::FileNotFoundError ArgumentError
                                     ActiveRecord::ActiveRecordError ActiveStorage::Error
                                     PG::Error Mysql2::Error Trilogy::Error SQLite3::Exception])
          end
        end
      end
    end
  end
end
