# frozen_string_literal: true

module RubyLLM
  class FileStore
    # The five tools as RubyLLM::Tool classes, each over one store. A chat with a file
    # store gets one of each; they keep the names the model knows.
    #
    #   chat.with_tools(*RubyLLM::FileStore::ChatTools.for(store))
    #
    # They subclass RubyLLM::Tool, so they exist once ruby_llm is loaded; without it
    # ChatTools.for and its classes raise ConfigurationError saying so, and the plain
    # classes under Tools, which need no ruby_llm, do the same work.
    module ChatTools
      # The classes ruby_llm's glue defines here.
      CLASSES = %i[Base ListFiles ReadFile SearchFiles WriteFile EditFile RunCode].freeze

      NEEDS_RUBY_LLM = 'RubyLLM::FileStore::ChatTools needs ruby_llm, whose RubyLLM::Tool its tools are: ' \
                       "require 'ruby_llm' before 'ruby_llm/file_store'. Without ruby_llm, call the plain " \
                       "classes under RubyLLM::FileStore::Tools, e.g. Tools::ReadFile.new(store).call(path: 'a.md')."

      # One of each of the five tools over +store+, sharing one record of what the
      # model read: each call gives a new one, so a read by one chat's tools never
      # lets another chat's tools change the file. +code+ answers whether the chat
      # can run code, so a tool points the model at run_code only then.
      def self.for(store, config: nil, on_write: nil, code: nil, reads: Reads.new)
        [ListFiles, ReadFile, SearchFiles, WriteFile, EditFile].map do |tool|
          tool.new(store, config:, on_write:, code:, reads:)
        end
      end

      def self.const_missing(name)
        CLASSES.include?(name) ? raise(ConfigurationError, NEEDS_RUBY_LLM) : super
      end
    end
  end
end
