# frozen_string_literal: true

module RubyLLM
  class FileStore
    # <tt>spill_to_file</tt> on RubyLLM::Tool: how long a result of this tool may be
    # before a chat with a file store saves it to a file and sends its start.
    #
    #   class SearchDocs < RubyLLM::Tool
    #     spill_to_file false   # pages its own results: always send them whole
    #   end
    #
    #   class ExportOrders < RubyLLM::Tool
    #     spill_to_file 50_000
    #   end
    module ToolSpill
      # Sets the limit in characters, or false to never spill. Without an argument,
      # returns it: nil when the tool leaves it to the chat. Subclasses inherit it.
      def spill_to_file(limit = (get = true))
        return inherited_spill_to_file if get
        raise ArgumentError, "spill_to_file takes a number of characters or false, not #{limit.inspect}" unless
          limit == false || (limit.is_a?(Integer) && limit.positive?)

        @spill_to_file = limit
      end

      private

      def inherited_spill_to_file
        owner = ancestors.find { |ancestor| ancestor.instance_variable_defined?(:@spill_to_file) }
        owner&.instance_variable_get(:@spill_to_file)
      end
    end
  end
end

RubyLLM::Tool.extend(RubyLLM::FileStore::ToolSpill)
