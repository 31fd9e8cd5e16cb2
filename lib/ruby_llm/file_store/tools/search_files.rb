# frozen_string_literal: true

module RubyLLM
  class FileStore
    module Tools
      # search_files: grep over the text of every file that reads as text, in path
      # order, with linear-time regexes.
      class SearchFiles < Base
        MAX_MATCHES = 200
        MAX_CONTEXT = 20

        def self.description
          'Searches the text of this chat\'s files, like grep: lines as path:line: text. pattern is a regular ' \
            'expression unless literal is true. PDFs and other formats are searched through converters.'
        end

        def self.parameters
          {
            pattern: { type: 'string', description: 'A regular expression (Rust syntax), or text with literal: true.' },
            path: { type: 'string', required: false, description: 'A folder or file to search. Leave out for all.' },
            literal: { type: 'boolean', required: false, description: 'Match pattern as plain text.' },
            ignore_case: { type: 'boolean', required: false, description: 'Ignore letter case.' },
            context: { type: 'integer', required: false, description: 'Lines to show before and after each match.' }
          }
        end

        private

        def run(pattern:, path: nil, literal: false, ignore_case: false, context: 0)
          pattern = pattern.to_s
          raise ArgumentError, 'pattern is empty: say what to search for' if pattern.empty?

          options = { literal: flag(literal), ignore_case: flag(ignore_case), max_matches: MAX_MATCHES,
                      context: [integer(context, 'context', minimum: 0) || 0, MAX_CONTEXT].min }
          folder = scope(path)
          (text, shown, total, _matched, summary), searched = search_tree(folder, pattern, options) ||
                                                              search_listed(folder, pattern, options)
          return "No matches for #{brief(pattern)} in #{count(searched)}." if shown.zero? && total.zero?

          [text.chomp, summary].compact.join("\n")
        end

        # A folder store with no converters to run searches its folder natively,
        # without listing it to Ruby first; nil when that does not apply.
        def search_tree(folder, pattern, options)
          return unless tree_search?(folder)

          found = store.search_tree(folder, pattern, **options)
          raise FileNotFoundError, missing(folder) if folder && found.last.zero? && store.list(folder).empty?

          found
        end

        def tree_search?(folder)
          store.respond_to?(:search_tree) && Converters.registry(config).empty? && !(folder && store[folder])
        end

        def search_listed(folder, pattern, options)
          entries = entries_for(files_in(folder))
          [store.search(entries, pattern, **options), entries.size]
        end

        def missing(folder)
          "No file or folder at #{folder}. list_files shows the files there are."
        end

        def files_in(folder)
          return store.list unless folder

          file = store[folder]
          return [file] if file

          files = store.list(folder)
          raise FileNotFoundError, missing(folder) if files.empty?

          files
        end

        def entries_for(files)
          source = TextSource.new(store, config)
          files.filter_map do |file|
            bytes = searchable(source, file)
            [file.path, bytes] unless bytes == false
          end
        end

        # A file whose converter fails is left out of the search rather than ending
        # it; read_file on that file says what went wrong.
        def searchable(source, file)
          source.searchable(file)
        rescue StandardError
          false
        end

        def count(files)
          files == 1 ? '1 file' : "#{files} files"
        end
      end
    end
  end
end
