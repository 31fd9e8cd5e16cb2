# frozen_string_literal: true

module RubyLLM
  class FileStore
    # The model's five tools over a store, as plain classes: each takes the model's
    # arguments and returns what the model reads. Every failure is a short message
    # starting "Error:", never an exception out of the chat.
    #
    #   tool = RubyLLM::FileStore::Tools::ReadFile.new(store)
    #   tool.call(path: "notes.md", offset: 10, limit: 20)
    module Tools
    end
  end
end

require_relative 'tools/base'
require_relative 'tools/text_source'
require_relative 'tools/list_files'
require_relative 'tools/read_file'
require_relative 'tools/search_files'
require_relative 'tools/write_file'
require_relative 'tools/edit_file'
require_relative 'tools/run_code'
