# frozen_string_literal: true

module RubyLLM
  class FileStore
    # The tools as RubyLLM::Tool classes, each over one store, made from the
    # declarations in tools/ (Tools::Base.tool): ChatTools::ReadFile runs
    # Tools::ReadFile under the name, description and parameters it declares. A chat
    # with a file store gets one of each tool offered by default; they keep the names
    # the model knows.
    #
    #   chat.with_tools(*RubyLLM::FileStore::ChatTools.for(store))
    #
    # They subclass RubyLLM::Tool, so they exist once ruby_llm is loaded; without it
    # ChatTools.for and its classes raise ConfigurationError saying so, and the plain
    # classes under Tools, which need no ruby_llm, do the same work.
    module ChatTools
      NEEDS_RUBY_LLM = 'RubyLLM::FileStore::ChatTools needs ruby_llm, whose RubyLLM::Tool its tools are: ' \
                       "require 'ruby_llm' before 'ruby_llm/file_store'. Without ruby_llm, call the plain " \
                       "classes under RubyLLM::FileStore::Tools, e.g. Tools::ReadFile.new(store).call(path: 'a.md')."

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
          self[tool].new(store, config:, on_write:, code:, reads:, chat:)
        end
      end

      # The RubyLLM::Tool class that runs +tool+, a plain Tools class.
      def self.[](tool)
        const_get(tool.name.split('::').last, false)
      end

      def self.const_missing(name)
        chat_tool = name == :Base || Tools.declared.each_value.any? { |tool| tool.name.end_with?("::#{name}") }
        chat_tool ? raise(ConfigurationError, NEEDS_RUBY_LLM) : super
      end
    end
  end
end
