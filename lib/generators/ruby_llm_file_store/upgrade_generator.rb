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
    # it up to date instead (paths byte-ordered, so folder queries use the index,
    # compared without padding, and held whole on MariaDB, MySQL and PostgreSQL). Run
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

      # For a table an earlier version created: one whose paths were not byte-ordered
      # gets byte_order_ruby_llm_chat_file_paths; one byte-ordered with a collation that
      # pads (MariaDB's and MySQL's utf8mb4_bin, where "a.txt" and "a.txt " are one
      # path) gets the same migration again as unpad_ruby_llm_chat_file_paths.
      def update_table
        return if @table_migration.nil? || unpadded?(@table_migration)

        byte_order = migration_named('byte_order_ruby_llm_chat_file_paths')
        if byte_order.nil? && !File.read(@table_migration).include?('path_collation')
          add_update('byte_order_ruby_llm_chat_file_paths')
        elsif !unpadded?(byte_order) && !migration_named('unpad_ruby_llm_chat_file_paths')
          add_update('unpad_ruby_llm_chat_file_paths')
        end
      end

      # For a table made before paths were kept whole on MariaDB and MySQL (a
      # varchar(255) column): whole_ruby_llm_chat_file_paths, which changes nothing on
      # other databases.
      def keep_paths_whole
        return if @table_migration.nil? || File.read(@table_migration).include?('path_digest')
        return if migration_named('whole_ruby_llm_chat_file_paths')

        migration_template 'whole_ruby_llm_chat_file_paths.rb.tt', 'db/migrate/whole_ruby_llm_chat_file_paths.rb'
      end

      # For a table made before paths were kept whole on PostgreSQL (unique over the
      # path itself, which its index holds up to about 2,700 bytes):
      # digest_ruby_llm_chat_file_paths, which changes nothing on other databases.
      def digest_paths
        return if @table_migration.nil? || File.read(@table_migration).include?('digested?')
        return if migration_named('digest_ruby_llm_chat_file_paths')

        migration_template 'digest_ruby_llm_chat_file_paths.rb.tt', 'db/migrate/digest_ruby_llm_chat_file_paths.rb'
      end

      def explain
        say 'acts_as_chat models get has_many :ruby_llm_chat_files from ruby_llm-file_store; ' \
            'other chat models: include RubyLLM::ActiveRecord::ChatFiles.'
      end

      private

      # Whether +migration+ (a file, or nil for none) gives paths a collation that
      # does not pad.
      def unpadded?(migration)
        !migration.nil? && File.read(migration).include?('nopad')
      end

      def add_update(name)
        migration_template 'byte_order_ruby_llm_chat_file_paths.rb.tt', "db/migrate/#{name}.rb"
      end

      def migration_named(name)
        Dir[File.join(destination_root, 'db', 'migrate', "*_#{name}.rb")].first
      end
    end
  end
end
