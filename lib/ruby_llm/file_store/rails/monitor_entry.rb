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
      # PostgreSQL, with blobs on S3). Now a thread that leaves the load interlock's or a
      # connection pool's synchronize other than by its block's value passes the monitor
      # on when it is free: it takes it without waiting and gives it back, which wakes
      # the next waiter. Entering, waiting and leaving are Ruby's own (Monitor, in C), so
      # an interrupt still ends a wait at once and never leaves the monitor held. (A
      # first version entered with interrupts deferred, and left a window in Ruby between
      # the block and the release: a storm of Thread#raise then left the interlock held
      # by no running thread.) Tested in monitor_entry_spec on 6.1, 7.2 and 8.1.
      module MonitorEntry
        # Prepended to the classes below, whose synchronize is MonitorMixin's.
        module HandOver
          def synchronize
            done = false
            result = super
            done = true
            result
          ensure
            # Not when this thread still holds it (an outer synchronize), nor after a
            # normal return, which released it through Ruby's own hand-over.
            Thread.handle_interrupt(Object => :never) { mon_exit if mon_try_enter } unless done || mon_owned?
          end
        end

        module_function

        def install!
          lock_classes.each { |klass| klass.prepend(HandOver) unless klass <= HandOver }
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
