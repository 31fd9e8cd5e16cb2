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
    # gem is loaded. An application that has the table gets the migrations that bring
    # it up to date instead (byte-ordered paths, so folder queries use the index). Run
    # again, it changes nothing.
    class UpgradeGenerator < InstallGenerator
      namespace 'ruby_llm_file_store:upgrade'
      # Not inherited: a Rails generator's default source root follows its own name.
      source_root File.expand_path('templates', __dir__)
      desc 'Adds the migration for ruby_llm_chat_files to an application that has ruby_llm\'s tables, ' \
           'or, when it has the table, the migrations that bring it up to date.'

      def create_migration_file
        existing = @table_migration = migration_named('create_ruby_llm_chat_files')
        if existing
          say_status(:skip, "#{relative_to_original_destination_root(existing)} creates the table already", :yellow)
          return
        end

        super
      end

      # For a table an earlier version created (its migration sets no path_collation).
      def update_table
        return if @table_migration.nil? || File.read(@table_migration).include?('path_collation')
        return if migration_named('byte_order_ruby_llm_chat_file_paths')

        name = 'byte_order_ruby_llm_chat_file_paths'
        migration_template "#{name}.rb.tt", "db/migrate/#{name}.rb"
      end

      def explain
        say 'acts_as_chat models get has_many :ruby_llm_chat_files from ruby_llm-file_store; ' \
            'other chat models: include RubyLLM::ActiveRecord::ChatFiles.'
      end

      private

      def migration_named(name)
        Dir[File.join(destination_root, 'db', 'migrate', "*_#{name}.rb")].first
      end
    end
  end
end
