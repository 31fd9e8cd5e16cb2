# frozen_string_literal: true

require 'rails/generators'

module RubyLLMFileStore
  module Generators
    # Writes app/views/chats/_files.html.erb, a partial that lists a chat's files with
    # download links:
    #
    #   bin/rails generate ruby_llm_file_store:chat_ui
    #   <%= render "chats/files", chat: @chat %>
    #
    # It lists the shared files only, unless the view passes +files:+ (see the partial).
    class ChatUiGenerator < Rails::Generators::Base
      namespace 'ruby_llm_file_store:chat_ui'
      source_root File.expand_path('templates', __dir__)
      desc "Creates app/views/chats/_files.html.erb, listing a chat's shared files with download links."

      class_option :folder, type: :string, default: 'chats', desc: 'The views folder of the chats'

      def create_partial
        copy_file '_files.html.erb', File.join('app/views', options[:folder], '_files.html.erb')
      end
    end
  end
end
