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

      # The full name of +event+, one of EVENTS.
      def name(event)
        raise ArgumentError, "no event #{event.inspect}: one of #{EVENTS.join(', ')}" unless EVENTS.include?(event)

        "#{event}.#{NAMESPACE}"
      end

      # Emits +event+ around the block, which gets the payload to add to and whose
      # value it returns; +:duration+ (milliseconds) is added before subscribers see
      # it, also when the block raises. Without a block the event is a moment's.
      def instrument(event, payload, config: nil)
        started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
        emit(name(event), payload, config) do |live|
          block_given? ? yield(live) : nil
        ensure
          live[:duration] = ((Process.clock_gettime(Process::CLOCK_MONOTONIC) - started) * 1000).round(3)
        end
      end

      # The one place that knows where events go.
      def emit(name, payload, config, &)
        RubyLLM.instrument(name, payload, config: config.respond_to?(:instrumenter) ? config : nil, &)
      end
    end
  end
end
