# frozen_string_literal: true

module RubyLLM
  class FileStore # :nodoc:
    module RailsStore
      # What the store reads of an Active Record adapter without asking it anything.
      module AdapterHandle # :nodoc:
        module_function

        # The driver's connection (PG::Connection, SQLite3::Database, Mysql2::Client)
        # held by +connection+, as it is, or nil: Rails 7.1 and later reconnect, and
        # begin what they deferred, when asked for #raw_connection.
        def raw(connection)
          connection.instance_variable_get(:@raw_connection) || connection.instance_variable_get(:@connection)
        end

        # The classes named by +names+ that are loaded now (a driver may be loaded after
        # the store, so callers look them up each time).
        def loaded(*names)
          names.filter_map { |name| Object.const_get(name) if Object.const_defined?(name) }
        end
      end
    end
  end
end
