# frozen_string_literal: true

# The generated application's page for a chat's files, around the generated partial.
class ChatFilesController < ApplicationController
  layout false

  def show
    @chat = Chat.find(params[:id])
  end
end
