# frozen_string_literal: true

# A chat's requests, each on the chat's declared store through the gem's tools, as
# the model's tool calls reach it.
class ChatsController < ApplicationController
  # The first line of a file, which converts a PDF.
  def read
    render plain: RubyLLM::FileStore::Tools::ReadFile.new(store).call(path: params.require(:path), limit: 1)
  end

  # Python that sleeps the seconds asked, in the sandbox, on a copy of the chat's files.
  def run
    runner = RubyLLM::FileStore::CodeRunner.new(store, python: true)
    code = "import time\ntime.sleep(#{Float(params.require(:seconds))})\nprint('slept')"
    render plain: RubyLLM::FileStore::Tools::RunCode.new(runner).call(language: 'python', code:)
  end

  def files
    render plain: RubyLLM::FileStore::Tools::ListFiles.new(store).call
  end

  private

  def store = Conversation.find(params.require(:id)).file_store
end
