# frozen_string_literal: true

# The job ruby_llm's chat UI generator writes (bin/rails generate ruby_llm:chat_ui):
# Chat.find(id).ask(content). Its block, which streams each chunk to the page through
# Turbo, is left out: this application has no Turbo, and the scripted server answers
# whole replies.
class ChatResponseJob < ApplicationJob
  def perform(chat_id, content)
    chat = Chat.find(chat_id)

    chat.ask(content)
  end
end
