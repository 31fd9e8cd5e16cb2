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

      # MariaDB and MySQL need a utf8mb4 connection for paths holding an emoji; the
      # migration and the store refuse another. A config/database.yml that names
      # their adapter and no such encoding is said so now.
      def check_encoding
        config = File.join(destination_root, 'config', 'database.yml')
        return unless File.exist?(config)

        text = File.read(config)
        return unless text.match?(/adapter:\s*["']?(mysql2|trilogy)/) && !text.match?(/encoding:\s*["']?utf8mb4/)

        say_status(:warn, 'config/database.yml names MySQL or MariaDB without encoding: utf8mb4, which ' \
                          'ruby_llm_chat_files needs (paths holding an emoji): add it', :red)
      end

      private

      def migration_version
        "[#{::ActiveRecord::VERSION::MAJOR}.#{::ActiveRecord::VERSION::MINOR}]"
      end
    end
  end
end
