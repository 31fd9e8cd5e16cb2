# frozen_string_literal: true

module RubyLLM
  class FileStore # :nodoc:
    module RailsStore
      # The third change to Rails itself (AdapterLock and MonitorEntry are the others),
      # for the store's own connections only. Thread#kill landing while a statement
      # runs leaves the connection cut off mid-query (mysql2: "This connection is still
      # waiting for a result"); the transaction's rollback, run as the kill unwinds,
      # then raises, and an error raised while a thread is killed takes the kill's
      # place: the thread ends with it and its join raises it (seen on MariaDB, under
      # interrupts_spec's storm). On a connection the store is using
      # (Interrupts.dropping_if_cut), which it throws away once the kill has passed, the
      # failed rollback is let go and the kill goes on; anywhere else, and for any other
      # thread, Rails' own behaviour stays.
      module CutRollback
        def rollback_db_transaction
          super
        rescue ::ActiveRecord::ActiveRecordError
          raise unless Thread.current.status == 'aborting' && Interrupts.dropping?(self)
        end

        def self.install!
          adapter = ::ActiveRecord::ConnectionAdapters::AbstractAdapter
          adapter.prepend(self) unless adapter <= self
        end
      end
    end
  end
end
RubyLLM::FileStore::RailsStore::CutRollback.install!
