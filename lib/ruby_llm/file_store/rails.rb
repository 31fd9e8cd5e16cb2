# frozen_string_literal: true

module RubyLLM
  class FileStore # :nodoc:
    # What the Active Storage store needs that is not loaded, as a sentence, or nil.
    # It loads neither framework itself: in a Rails application they are loaded by the
    # time a store is built, and elsewhere the application decides.
    def self.active_storage_missing
      return 'Active Record is not loaded (require "active_record")' unless defined?(::ActiveRecord::Base)

      unless defined?(::ActiveStorage) && ::ActiveRecord::Base.respond_to?(:has_one_attached)
        return 'Active Storage is not loaded (require "active_storage/engine" in config/application.rb, ' \
               'then run bin/rails active_storage:install)'
      end

      nil
    end

    # Raises RubyLLM::ConfigurationError, naming +what+ and what is missing, unless
    # Active Record and Active Storage are loaded.
    def self.require_active_storage!(what) # :nodoc:
      missing = active_storage_missing
      raise ConfigurationError, "#{what} needs Active Record and Active Storage: #{missing}" if missing
    end

    # The machinery of the Active Storage store, in lib/ruby_llm/file_store/rails/:
    # its lock on the chat's row, uploads, the rows a store sees, interrupts and
    # SQLite's waits. Its public classes keep their names under RubyLLM::ActiveRecord
    # (an application's tables name ChatFile). Not called Rails: a constant of
    # FileStore is one of every store's, so a store an application writes
    # (<tt>class BucketStore < RubyLLM::FileStore</tt>) would find it for Rails.root.
    module RailsStore # :nodoc:
      autoload :SQLiteWait, File.expand_path('rails/sqlite_wait', __dir__)
      autoload :Ownerless, File.expand_path('rails/ownerless', __dir__)
    end
  end

  # Chat files in Rails: RubyLLM::ActiveRecord::FileStore, ChatFile and ChatFiles,
  # loaded on first use so that requiring the gem loads no part of Rails early.
  module ActiveRecord
    autoload :ChatFile, File.expand_path('rails/chat_file', __dir__)
    autoload :ChatFiles, File.expand_path('rails/chat_files', __dir__)
    autoload :FileStore, File.expand_path('rails/file_store', __dir__)
    autoload :Tidy, File.expand_path('rails/tidy', __dir__)
    autoload :TidyJob, File.expand_path('rails/tidy_job', __dir__)
  end
end

# SQLite connections wait for a busy database without stopping the process's other
# threads (see SQLiteWait), from the first connection on when Rails is loaded first.
RubyLLM::FileStore::RailsStore::SQLiteWait.hook! if defined?(ActiveSupport.on_load)
