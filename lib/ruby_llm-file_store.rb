# frozen_string_literal: true

require_relative 'ruby_llm/file_store'
