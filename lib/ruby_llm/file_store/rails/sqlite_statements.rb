# frozen_string_literal: true

module RubyLLM
  class FileStore # :nodoc:
    module RailsStore
      # The statements a SQLite connection has open, closed before the connection is.
      #
      # An interrupt that lands between the sqlite3 gem preparing a statement and Rails
      # keeping it (Rails 6.1 caches prepared statements: +@statements[sql] ||=
      # prepare(sql)+) leaves a statement nothing closes. The sqlite3 gem before 2.0
      # never finalizes a collected statement, and SQLite refuses to close a connection
      # with one ("unable to close due to unfinalized statements"), which Rails'
      # disconnect! ignores: the connection, dropped from its pool, stayed open until
      # the process exited; sqlite3 2.x leaves it open until the statement is
      # collected. So each statement is noted on its connection while open, and a
      # connection closes those first.
      module SQLiteStatements
        KEY = :@ruby_llm_file_store_statements

        # SQLite3::Statement's.
        module Statement
          def initialize(db, *rest, **options)
            Thread.handle_interrupt(Object => :never) do
              super
              SQLiteStatements.opened(db, self)
            end
          end

          def close
            Thread.handle_interrupt(Object => :never) do
              super.tap { SQLiteStatements.closed(@connection, self) }
            end
          end
        end

        # SQLite3::Database's.
        module Database
          def close
            Thread.handle_interrupt(Object => :never) do
              SQLiteStatements.close_all(self)
              super
            end
          end
        end

        module_function

        def install!
          return if ::SQLite3::Statement <= Statement

          ::SQLite3::Statement.prepend(Statement)
          ::SQLite3::Database.prepend(Database)
        end

        def opened(db, statement)
          (db.instance_variable_get(KEY) || db.instance_variable_set(KEY, {}.compare_by_identity))[statement] = true
        end

        def closed(db, statement)
          db&.instance_variable_get(KEY)&.delete(statement)
        end

        # Closes the statements still open on +db+.
        def close_all(db)
          open = db.instance_variable_get(KEY)
          return unless open

          open.each_key do |statement|
            statement.close unless statement.closed?
          rescue StandardError
            nil
          end
          open.clear
        end
      end
    end
  end
end
