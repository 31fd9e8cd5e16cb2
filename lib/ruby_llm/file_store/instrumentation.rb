# frozen_string_literal: true

module RubyLLM
  class FileStore
    # The events the gem emits, named as ruby_llm names its own
    # (<tt>tool.file_store.ruby_llm</tt>), through RubyLLM.instrument, so
    # <tt>config.instrumenter</tt> decides where they go (ActiveSupport::Notifications
    # in a Rails app) and, on ruby_llm main, a workflow's context is in the payload.
    # A payload never holds a file's content. docs/instrumentation.md lists every
    # event and its payload.
    #
    #   ActiveSupport::Notifications.subscribe("tool.file_store.ruby_llm") do |event|
    #     Rails.logger.info "#{event.payload[:tool]} #{event.payload[:path]} #{event.payload[:outcome]}"
    #   end
    module Instrumentation
      # The second part of every event's name.
      NAMESPACE = 'file_store.ruby_llm'
      # The events, each <tt>"#{event}.#{NAMESPACE}"</tt>.
      EVENTS = %i[tool convert spill run_code attachment refused_write].freeze

      module_function

      # The full name of each event.
      NAMES = EVENTS.to_h { |event| [event, "#{event}.#{NAMESPACE}".freeze] }.freeze

      # The full name of +event+, one of EVENTS.
      def name(event)
        NAMES[event] || raise(ArgumentError, "no event #{event.inspect}: one of #{EVENTS.join(', ')}")
      end

      # Emits +event+ around the block, which gets the payload to add to and whose
      # value it returns; +:duration+ (milliseconds) is added before subscribers see
      # it, also when the block raises. Without a block the event is a moment's. An
      # event nothing would see (no instrumenter, or Active Support's with no
      # subscriber of that name) just runs the block.
      def instrument(event, payload, config: nil)
        name = NAMES[event] || name(event)
        return block_given? ? yield(payload) : nil unless listened?(name, config)

        started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
        emit(name, payload, config) do |live|
          block_given? ? yield(live) : nil
        ensure
          live[:duration] = ((Process.clock_gettime(Process::CLOCK_MONOTONIC) - started) * 1000).round(3)
        end
      end

      # Whether anything would see the event +name+. Any instrumenter but Active
      # Support's may, so it is asked; Active Support's tells whether a subscriber
      # listens (it skips the event itself otherwise).
      def listened?(name, config)
        # Every call of a tool asks: the common case (no config given) first.
        config = RubyLLM.config if config.nil? || !config.respond_to?(:instrumenter)
        instrumenter = config.instrumenter
        return false if instrumenter.nil?
        # Active Support's says whether an event has a subscriber; any other may see it.
        return true unless defined?(::ActiveSupport::Notifications)
        return true unless instrumenter.equal?(::ActiveSupport::Notifications)

        instrumenter.notifier.listening?(name)
      end

      # The one place that knows where events go. A subscriber that raises (an APM
      # agent's bug) changes nothing the block does or returns: the block runs once,
      # its value is returned and its own exception raised as without subscribers,
      # and the subscriber's exception is reported (#report).
      def emit(name, payload, config)
        ran = false
        value = failure = nil
        begin
          RubyLLM.instrument(name, payload, config: config.respond_to?(:instrumenter) ? config : nil) do |live|
            ran = true
            value = yield(live)
          rescue Exception => e # rubocop:disable Lint/RescueException
            failure = e
            raise
          end
        rescue StandardError => e
          report(e, name) unless e.equal?(failure)
        end
        outcome(ran, value, failure) { yield(payload) }
      end

      # What an event's block gave: its value, its own exception raised again, or,
      # where an instrumenter raised (or returned) before running it, what it gives now.
      def outcome(ran, value, failure)
        raise failure if failure

        ran ? value : yield
      end

      # Reports +error+, raised by a subscriber of the event +name+: a line in the
      # log and, in Rails 7 and later, the application's error reporter (Rails.error).
      def report(error, name)
        logger = defined?(::ActiveSupport::LogSubscriber) && ::ActiveSupport::LogSubscriber.logger
        logger ||= RubyLLM.logger if RubyLLM.respond_to?(:logger)
        logger&.error("FileStore: a subscriber of #{name} raised #{error.class}: " \
                      "#{error.message.to_s.lines.first.to_s.chomp.inspect}; the tool went on")
        error_reporter&.report(error, handled: true, context: { event: name })
      rescue StandardError
        nil
      end

      # Active Support's error reporter, where it is loaded (Rails 7 and later).
      def error_reporter
        if defined?(::ActiveSupport) && ::ActiveSupport.respond_to?(:error_reporter)
          ::ActiveSupport.error_reporter
        elsif defined?(::Rails) && ::Rails.respond_to?(:error)
          ::Rails.error
        end
      end
    end
  end
end
