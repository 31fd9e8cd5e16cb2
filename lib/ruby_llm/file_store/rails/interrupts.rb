# frozen_string_literal: true

module RubyLLM
  class FileStore # :nodoc:
    module RailsStore
      # Sections that Timeout.timeout and Thread#kill wait for: taking and giving back
      # a lock, beginning and ending a transaction, cleaning up after a write. Inside
      # one, the caller's own work runs with interrupts as the caller had them: taken
      # at once at the outermost, still deferred when the section is itself inside
      # another (a purge run by a commit's callbacks), so no inner section lets an
      # interrupt into an outer one.
      module Interrupts # :nodoc:
        KEY = :ruby_llm_file_store_deferring
        private_constant :KEY

        module_function

        # Runs the block with interrupts deferred and returns its value. The block is
        # given a proc that runs a block of its own with interrupts as they were.
        #
        #   Interrupts.deferred { |as_before| take; begin as_before.call { work } ensure give_back end }
        def deferred
          outer = Thread.current[KEY]
          Thread.current[KEY] = true
          Thread.handle_interrupt(Object => :never) { yield(outer ? method(:inside) : method(:allowed)) }
        ensure
          Thread.current[KEY] = outer
        end

        # Runs the block with +connection+; left by an interrupt (Timeout.timeout, a
        # throw, Thread#kill) rather than by its value or an error of its own, the
        # connection may be cut off mid-query (mysql2 then refuses every later query),
        # so it is dropped from the pool.
        def dropping_if_cut(connection)
          clean = false
          begin
            result = yield
            clean = true
            result
          rescue StandardError => e
            clean = !(defined?(::Timeout::Error) && e.is_a?(::Timeout::Error))
            raise
          ensure
            connection.throw_away! unless clean
          end
        end

        def inside(&block)
          block.call
        end

        def allowed(&block)
          Thread.current[KEY] = false
          Thread.handle_interrupt(Object => :immediate, &block)
        ensure
          Thread.current[KEY] = true
        end
      end
    end
  end
end
