# frozen_string_literal: true

# The chat integration: Chat#with_file_store and what it changes (the tools, the view
# of the messages, spilled results), code execution, agents and acts_as_chat records,
# over the seam seams.rb picked for the ruby_llm loaded.
require_relative 'chat/configuration'
require_relative 'chat/attachment_keeper'
require_relative 'chat/spiller'
require_relative 'chat/message_view'
require_relative 'chat/chat_extension'
require_relative 'chat/code_execution'
require_relative 'chat/agent'
require_relative 'chat/message_attachments'
require_relative 'chat/acts_as_chat'
require_relative 'railtie' if defined?(::Rails::Railtie)
