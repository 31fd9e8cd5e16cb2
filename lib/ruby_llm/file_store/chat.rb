# frozen_string_literal: true

module RubyLLM
  class FileStore # :nodoc:
    # The ruby_llm versions whose chats this gem serves, for the error on the others.
    CHAT_VERSIONS = 'ruby_llm 1.16.0 or later (the 1.16 release or main)'

    # Each generation of ruby_llm hands a request's messages and a tool's result over
    # at its own seams. The glue for the seams present is loaded; everything else is
    # the same on both. Without either, the stores, converters and tools still load,
    # and with_file_store says which versions work.
    SEAMS = {
      'seams/preprocessed_messages' => {
        'Chat#preprocessed_messages' => -> { RubyLLM::Chat.private_method_defined?(:preprocessed_messages) },
        'Chat#add_tool_result_message' => -> { RubyLLM::Chat.private_method_defined?(:add_tool_result_message) },
        'Tool.split_result' => -> { RubyLLM::Tool.respond_to?(:split_result) },
        'Agent.apply_configuration' => -> { RubyLLM::Agent.respond_to?(:apply_configuration) }
      },
      'seams/provider_completion' => {
        'Chat#provider_completion' => -> { RubyLLM::Chat.private_method_defined?(:provider_completion) },
        'Chat#add_tool_result_message' => -> { RubyLLM::Chat.private_method_defined?(:add_tool_result_message) },
        'Content' => -> { defined?(RubyLLM::Content) && RubyLLM::Content.method_defined?(:attachments) },
        'Agent.apply_configuration' => lambda {
          defined?(RubyLLM::Agent) && RubyLLM::Agent.singleton_class.private_method_defined?(:apply_configuration)
        }
      }
    }.freeze

    SEAMS_FILE = SEAMS.find { |_, hooks| hooks.values.all?(&:call) }&.first || 'seams/none'
  end
end

require_relative "ruby_llm/#{RubyLLM::FileStore::SEAMS_FILE}"
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
