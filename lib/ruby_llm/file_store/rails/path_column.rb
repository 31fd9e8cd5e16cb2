# frozen_string_literal: true

module RubyLLM
  class FileStore # :nodoc:
    module RailsStore
      # What the database keeps of a path: refused, with an error naming it, where the
      # column or its index would cut it or fail with the database's own words, and a
      # connection checked for the character set paths need.
      module PathColumn # :nodoc:
        module_function

        # Runs the block, which saves +row+, unless its path would not be kept whole.
        def saving(row)
          refuse_cut(row)
          yield
        rescue ::ActiveRecord::StatementInvalid => e
          raise past_index(e, row.path) || e
        end

        # Raises RubyLLM::FileStore::Error when +row+'s path is longer than its column
        # holds (a table made before paths were kept whole): MySQL and MariaDB cut it
        # with strict mode off, and fail with their own words with it on.
        def refuse_cut(row)
          limit = row.class.columns_hash['path']&.limit
          return if limit.nil? || row.path.length <= limit

          raise Error, "#{row.path.inspect} was not written: it is #{row.path.length} characters long, and the " \
                       "column #{row.class.table_name}.path holds #{limit} (the ruby_llm_file_store:upgrade " \
                       'generator makes it hold 4,096 bytes)'
        end

        # The error for +error+ when it is PostgreSQL's refusal of an index entry too
        # long for its B-tree; else nil.
        def past_index(error, path)
          return unless defined?(::PG::ProgramLimitExceeded) && error.cause.is_a?(::PG::ProgramLimitExceeded)

          Error.new("#{path.inspect} was not written: its #{path.bytesize} bytes are more than PostgreSQL's " \
                    'index of paths holds (about 2,700 bytes that do not compress); a shorter path fits (the ' \
                    'ruby_llm_file_store:upgrade generator makes the table hold 4,096 bytes)')
        end

        # Raises RubyLLM::ConfigurationError unless +model+'s connection speaks utf8mb4
        # on MariaDB and MySQL: in another character set (Rails 6.1's, when the URL or
        # database.yml names none) a path holding an emoji cannot be compared with the
        # column ("Illegal mix of collations").
        def require_utf8mb4!(model)
          model.connection_pool.with_connection do |connection|
            next unless connection.adapter_name.match?(/mysql|trilogy/i)

            charset = connection.select_value('SELECT @@character_set_connection')
            next if charset == 'utf8mb4'

            raise RubyLLM::ConfigurationError,
                  "#{model.table_name} needs a utf8mb4 database connection, and this one is #{charset}, where a " \
                  'path holding an emoji cannot be found: add encoding: utf8mb4 to config/database.yml (or ' \
                  '?encoding=utf8mb4 to DATABASE_URL)'
          end
        end
      end
    end
  end
end
