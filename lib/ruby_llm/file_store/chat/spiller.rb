# frozen_string_literal: true

module RubyLLM
  class FileStore
    # Saves a tool result longer than its limit under <tt>results/</tt> and returns
    # the start of it with a note saying where the rest is. When saving fails, the
    # result goes to the model whole: nothing is lost.
    class Spiller # :nodoc:
      def initialize(store, limit, on_write, chat: nil, config: nil)
        @store = store
        @limit = limit
        @on_write = on_write
        @chat = chat
        @config = config
      end

      # The content the model gets for +content+, the result of the tool +tool+;
      # each spill is a <tt>spill.file_store.ruby_llm</tt> event.
      def call(tool, content)
        limit = limit_for(tool)
        return content unless limit && content.is_a?(String) && content.length > limit

        payload = { chat: @chat, store: @store, tool: tool&.name.to_s, bytes_in: content.bytesize }
        Instrumentation.instrument(:spill, payload, config: @config) { |event| spill(tool, content, event) }
      end

      private

      def spill(tool, content, event)
        spilled = Native.spill(tool&.name.to_s, content)
        event[:path] = spilled[:path]
        file = @store.write(spilled[:path], spilled[:saved])
        @on_write&.call(file)
        event.merge!(outcome: :spilled, bytes_out: spilled[:preview].bytesize)
        spilled[:preview]
      rescue StandardError => e
        event.merge!(outcome: :failed, error: "#{e.class.name}: #{e.message}", bytes_out: content.bytesize)
        RubyLLM.logger.warn("ruby_llm-file_store: kept a long #{tool&.name} result whole: #{e.message}")
        content
      end

      def limit_for(tool)
        own = tool.class.spill_to_file if tool.class.respond_to?(:spill_to_file)
        return own unless own.nil?

        @limit
      end
    end
  end
end
