# frozen_string_literal: true

require 'rails/generators'
require 'rails/generators/active_record'

module RubyLLMFileStore
  module Generators
    # Adds the migration that creates ruby_llm_chat_files:
    #
    #   bin/rails generate ruby_llm_file_store:install
    #   bin/rails db:migrate
    #
    # Active Storage's own tables come from <tt>bin/rails active_storage:install</tt>.
    class InstallGenerator < Rails::Generators::Base
      include ::ActiveRecord::Generators::Migration

      namespace 'ruby_llm_file_store:install'
      source_root File.expand_path('templates', __dir__)
      desc 'Creates the migration for ruby_llm_chat_files, the table of chat files in Active Storage.'

      def create_migration_file
        migration_template 'create_ruby_llm_chat_files.rb.tt', 'db/migrate/create_ruby_llm_chat_files.rb'
      end

      private

      def migration_version
        "[#{::ActiveRecord::VERSION::MAJOR}.#{::ActiveRecord::VERSION::MINOR}]"
      end
    end
  end
end
