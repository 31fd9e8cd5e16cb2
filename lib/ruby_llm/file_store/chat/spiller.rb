# frozen_string_literal: true

module RubyLLM
  class FileStore
    # Saves a tool result longer than its limit under <tt>results/</tt> and returns
    # the start of it with a note saying where the rest is. When saving fails, the
    # result goes to the model whole: nothing is lost.
    class Spiller # :nodoc:
      def initialize(store, limit, on_write)
        @store = store
        @limit = limit
        @on_write = on_write
      end

      # The content the model gets for +content+, the result of the tool +tool+.
      def call(tool, content)
        limit = limit_for(tool)
        return content unless limit && content.is_a?(String) && content.length > limit

        spilled = Native.spill(tool&.name.to_s, content)
        file = @store.write(spilled[:path], spilled[:saved])
        @on_write&.call(file)
        spilled[:preview]
      rescue StandardError => e
        RubyLLM.logger.warn("ruby_llm-file_store: kept a long #{tool&.name} result whole: #{e.message}")
        content
      end

      private

      def limit_for(tool)
        own = tool.class.spill_to_file if tool.class.respond_to?(:spill_to_file)
        return own unless own.nil?

        @limit
      end
    end
  end
end
