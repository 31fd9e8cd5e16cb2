# frozen_string_literal: true

require 'active_support'
require 'active_support/version'

module RubyLLM
  class FileStore # :nodoc:
    module RailsStore
      # One of two changes to Rails itself (MonitorEntry is the other). The lock of an
      # Active Record connection lets exceptions raised into the thread in again inside
      # it (Thread.handle_interrupt(Exception => :immediate)), even where the caller had
      # them deferred: so Thread#raise, and Timeout.timeout with an error class of the
      # application's, stopped the store's checkouts, checkins, rollbacks and
      # throw_away! halfway (a connection taken out of the pool and never closed, on
      # SQLite inside a write transaction; an adapter whose initialize was cut, its
      # socket left open). Inside the store's deferred sections (Interrupts.deferred,
      # where only the gem's own bookkeeping runs) this lock now keeps them deferred;
      # everywhere else, the application's queries included, it is Rails' own.
      #
      # Covers the locks that do so: ActiveSupport::Concurrency::LoadInterlockAwareMonitor
      # (every connection's on Rails 6.1 and 7.0; a connection a test pins, Fiber-wise,
      # on 7.1 and 7.2), ThreadLoadInterlockAwareMonitor (a connection a test pins on 7.1
      # and 7.2) and ThreadMonitor (the same on 8.0 and 8.1, where the others are
      # deprecated aliases of ::Monitor, left alone). Rails 7.1 and later give an
      # unpinned connection a lock that changes nothing (NullLock), where this has
      # nothing to do. Tested on 6.1, 7.2 and 8.1 (adapter_lock_spec), with the storms
      # of connection_interrupts_spec on 6.1 and 7.2.
      module AdapterLock
        # Prepended to the lock classes above.
        module Deferring
          def synchronize(&block)
            return super unless FileStore::Interrupts.deferring?

            mon_enter
            begin
              block.call
            ensure
              mon_exit
            end
          end
        end

        module_function

        def install!
          lock_classes.each { |klass| klass.prepend(Deferring) unless klass <= Deferring }
        end

        def lock_classes
          if ::ActiveSupport.version < Gem::Version.new('8.0')
            require 'active_support/concurrency/load_interlock_aware_monitor'
            concurrency = ::ActiveSupport::Concurrency
            names = %i[LoadInterlockAwareMonitor ThreadLoadInterlockAwareMonitor]
            names.select { |name| concurrency.const_defined?(name, false) }.map { |name| concurrency.const_get(name) }
          else
            require 'active_support/concurrency/thread_monitor'
            [::ActiveSupport::Concurrency::ThreadMonitor]
          end
        rescue LoadError
          []
        end
      end
    end
  end
end

RubyLLM::FileStore::RailsStore::AdapterLock.install!
