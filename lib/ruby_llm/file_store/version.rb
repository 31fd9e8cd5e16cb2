# frozen_string_literal: true

module RubyLLM
  class FileStore
    VERSION = '0.1.0'
  end
end
