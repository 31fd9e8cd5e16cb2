# frozen_string_literal: true

module RubyLLM
  class FileStore
    # The tools a chat with a file store gives the model (see Tools, whose classes
    # they are): one of each tool offered by default, then those the application
    # asks for. They keep the names the model knows.
    #
    #   chat.with_tools(*RubyLLM::FileStore::ChatTools.for(store))
    module ChatTools
      # One of each tool offered by default over +store+, then those named in +extra+
      # (tools offered on request, as <tt>[:glob_files]</tt>), sharing one record of
      # what the model read: each call gives a new one, so a read by one chat's tools
      # never lets another chat's tools change the file. +code+ answers whether the
      # chat can run code, so a tool points the model at run_code only then. Raises
      # ArgumentError for a name in +extra+ that is no such tool. +chat+ is named in
      # the tools' events.
      #
      #   RubyLLM::FileStore::ChatTools.for(store, extra: [:glob_files]).map(&:name)
      #   # => ["list_files", "read_file", "search_files", "write_file", "edit_file", "glob_files"]
      def self.for(store, config: nil, on_write: nil, code: nil, reads: Reads.new, extra: [], chat: nil)
        (Tools.by_default + Tools.on_request(extra)).map do |tool|
          tool.new(store, config:, on_write:, code:, reads:, chat:)
        end
      end
    end
  end
end
