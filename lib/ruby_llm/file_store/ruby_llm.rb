# frozen_string_literal: true

module RubyLLM
  class FileStore # :nodoc:
    # The points of ruby_llm this gem hooks into, each checked before it loads.
    HOOKS = {
      'Chat#preprocessed_messages' => -> { RubyLLM::Chat.private_method_defined?(:preprocessed_messages) },
      'Chat#add_tool_result_message' => -> { RubyLLM::Chat.private_method_defined?(:add_tool_result_message) },
      'Tool.split_result' => -> { RubyLLM::Tool.respond_to?(:split_result) },
      'Agent.apply_configuration' => -> { RubyLLM::Agent.respond_to?(:apply_configuration) }
    }.freeze

    missing = HOOKS.reject { |_, present| present.call }.keys
    unless missing.empty?
      raise LoadError, "ruby_llm-file_store needs ruby_llm 1.16 or later: ruby_llm #{RubyLLM::VERSION} has no " \
                       "#{missing.join(', ')}, where chats with files hook in."
    end
  end
end

require_relative 'ruby_llm/configuration'
require_relative 'ruby_llm/tool_spill'
require_relative 'ruby_llm/chat_tools'
require_relative 'ruby_llm/attachment_keeper'
require_relative 'ruby_llm/spiller'
require_relative 'ruby_llm/message_view'
require_relative 'ruby_llm/chat'
require_relative 'ruby_llm/code_tool'
require_relative 'ruby_llm/code_execution'
require_relative 'ruby_llm/agent'
require_relative 'ruby_llm/acts_as_chat'
