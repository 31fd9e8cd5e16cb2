# frozen_string_literal: true

require 'monitor'
require 'active_support'
require 'active_support/concurrency/share_lock'

module RubyLLM
  class FileStore # :nodoc:
    module RailsStore
      # The second change to Rails, for a Ruby behaviour (3.1 to 3.4 alike): a Mutex or
      # Monitor released with threads waiting wakes one of them, and an interrupt
      # (Timeout.timeout, Thread#raise) that lands on that thread as it wakes ends its
      # wait and the hand-over with it. The other waiters sleep on beside a free lock
      # until some later thread takes and releases it.
      #
      # On Rails 6.1 and 7.0 that later thread may never come: a thread waiting for a
      # pooled connection holds the pool's monitor while it waits to re-enter the load
      # interlock's (ConnectionPool::Queue#wait_poll inside permit_concurrent_loads), so
      # every thread that would release the interlock queues behind it. A storm of
      # Timeouts on a busy pool stopped every thread of the process for good (MariaDB and
      # PostgreSQL, with blobs on S3). The load interlock (ShareLock) and a connection
      # pool now enter their monitor with interrupts deferred, as Rails' own connection
      # lock does; an interrupt that came meanwhile is raised once the monitor is held,
      # and the monitor is given back. Their monitors guard bookkeeping only and every
      # wait inside goes through a condition variable, which lets interrupts in as
      # before. Tested in monitor_entry_spec on 6.1, 7.2 and 8.1.
      module MonitorEntry
        # Prepended to the classes below, whose synchronize is MonitorMixin's.
        module Deferred
          def synchronize
            entered = false
            begin
              Thread.handle_interrupt(Object => :never) do
                mon_enter
                entered = true
              end
              yield
            ensure
              Thread.handle_interrupt(Object => :never) { mon_exit } if entered
            end
          end
        end

        module_function

        def install!
          lock_classes.each { |klass| klass.prepend(Deferred) unless klass <= Deferred }
        end

        def lock_classes
          require 'active_record'
          [::ActiveSupport::Concurrency::ShareLock, ::ActiveRecord::ConnectionAdapters::ConnectionPool]
        end
      end
    end
  end
end

RubyLLM::FileStore::RailsStore::MonitorEntry.install!
