# frozen_string_literal: true

module RubyLLM
  class FileStore # :nodoc:
    module RailsStore
      # The rows of ruby_llm_chat_files one store sees: its owner's and the chat's shared
      # ones, one per path, the owner's first. Every query is scoped to the chat and those
      # owner keys, so no store reads another owner's row even by path.
      class View # :nodoc:
        # +keys+: the owner_key the store writes, then the shared key "" when different.
        def initialize(chat, keys)
          @chat = chat
          @keys = keys
        end

        # The scope of every row this view may see.
        def scope
          RubyLLM::ActiveRecord::ChatFile.where(chat_type: @chat.class.polymorphic_name, chat_id: @chat.id,
                                                owner_key: @keys)
        end

        # The rows inside +folder+ (with its trailing slash), or all of them.
        def rows(folder = nil)
          found = scope.listed.where.not(path: Passages::SAVED_PATH)
          found = found.where(inside(folder)) if folder
          preferred(found.to_a.select { |row| folder.nil? || row.path.start_with?(folder) })
        end

        # The row at +path+, or nil. Some databases compare without case, so the exact
        # path is checked here too.
        def row_at(path, from = scope.listed)
          preferred(from.where(at(path)).to_a.select { |row| row.path == path }).first
        end

        # The row of the store's own owner at +path+, the one a write replaces.
        def own_row_at(path)
          scope.where(owner_key: @keys.first, **at(path)).to_a.find { |row| row.path == path }
        end

        # Whether +path+ is a folder: some row lies inside it (among +from+'s rows).
        def folder?(path, from = scope)
          folder = "#{path}/"
          paths = from.where(inside(folder)).pluck(:path)
          paths.any? { |found| found.start_with?(folder) }
        end

        # The rows the store's own owner wrote: a file and a folder of one name clash only
        # there, so a shared file and an owner's folder of that name (or the reverse) can
        # both exist, whichever came first.
        def own_scope
          scope.where(owner_key: @keys.first)
        end

        # The folder of +path+ that is a file of the store's own owner, if any.
        def own_file_among_parents(path)
          parts = path.split('/')[0...-1]
          parts.each_index.map { |i| parts[0..i].join('/') }.find { |parent| own_row_at(parent) }
        end

        # The condition of the rows inside +folder+ (with its trailing slash): a range
        # of the paths' index. On PostgreSQL with paths unique by digest, that index
        # holds the paths' first PATH_START characters, so a folder within them is
        # looked for there too.
        def inside(folder)
          pattern = "#{folder.gsub(/[\\%_]/) { |char| "\\#{char}" }}%"
          table = RubyLLM::ActiveRecord::ChatFile.arel_table
          condition = table[:path].matches(pattern, '\\', true)
          return condition unless folder.length < PATH_START && indexed_by_start?

          start = Arel::Nodes::NamedFunction.new('left', [table[:path], Arel::Nodes.build_quoted(PATH_START)])
          condition.and(start.matches(pattern, '\\', true))
        end

        # The characters of a path PostgreSQL's index of paths holds.
        PATH_START = 600

        private

        # What finds the row at +path+: its digest where the table has one, which its
        # unique index holds whole (PostgreSQL's and MySQL's indexes cannot hold a long
        # path), else the path.
        def at(path)
          return { path: } unless digested?

          { path_digest: Digest::SHA256.hexdigest(path) }
        end

        def preferred(rows)
          rows.group_by(&:path).map { |_, same| same.min_by { |row| @keys.index(row.owner_key) } }
        end

        # Whether paths are unique by their digest (PostgreSQL, MariaDB and MySQL tables
        # this version makes).
        def digested?
          RubyLLM::ActiveRecord::ChatFile.column_names.include?('path_digest')
        end

        def indexed_by_start?
          digested? && RubyLLM::ActiveRecord::ChatFile.connection_db_config.adapter.to_s.match?(/postg/i)
        end
      end
    end
  end
end
