# frozen_string_literal: true

require_relative 'ruby_llm/configuration'
require_relative 'ruby_llm/chat_tools'
