# frozen_string_literal: true

require_relative 'install_generator'

module RubyLLMFileStore
  module Generators
    # Adds ruby_llm_chat_files to an application that already has ruby_llm's tables
    # (chats, messages, tool calls, models), and Active Storage's:
    #
    #   bin/rails generate ruby_llm_file_store:upgrade
    #   bin/rails db:migrate
    #
    # The table refers to chats polymorphically, so ruby_llm's tables are left as they
    # are, and acts_as_chat declares <tt>has_many :ruby_llm_chat_files</tt> once this
    # gem is loaded. Run again, or after the install generator, it changes nothing.
    class UpgradeGenerator < InstallGenerator
      namespace 'ruby_llm_file_store:upgrade'
      # Not inherited: a Rails generator's default source root follows its own name.
      source_root File.expand_path('templates', __dir__)
      desc 'Adds the migration for ruby_llm_chat_files to an application that has ruby_llm\'s tables, ' \
           'unless it has it already.'

      def create_migration_file
        existing = Dir[File.join(destination_root, 'db', 'migrate', '*_create_ruby_llm_chat_files.rb')].first
        if existing
          say_status(:skip, "#{relative_to_original_destination_root(existing)} creates the table already", :yellow)
          return
        end

        super
      end

      def explain
        say 'acts_as_chat models get has_many :ruby_llm_chat_files from ruby_llm-file_store; ' \
            'other chat models: include RubyLLM::ActiveRecord::ChatFiles.'
      end
    end
  end
end
