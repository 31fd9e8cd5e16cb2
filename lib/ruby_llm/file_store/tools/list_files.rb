# frozen_string_literal: true

module RubyLLM
  class FileStore
    module Tools
      # list_files: one line per file, sorted by path; a file search_files and
      # read_file cannot read as text says why.
      class ListFiles < Base
        MAX_LINES = 1000

        tool 'list_files', offered: :by_default, order: 1
        description "Lists this chat's files, one line each: path (content type, size). Pass path to list one " \
                    'folder. A file with no text to search says why, like "(image/png, 3 KB; has no text converter)".'
        argument :path, type: 'string', description: 'A folder to list, like "reports". Leave out for every file.',
                        required: false

        # Lists the files in +path+, or every file.
        def execute(path: nil)
          folder = scope(path)
          files, total = store.list_first(MAX_LINES, folder)
          files = [store[folder]].compact if total.zero? && folder
          return empty(folder) if files.empty?

          source = TextSource.new(store, config)
          lines = files.map { |file| line(file, source.why_not_text(file)) }
          lines << "[#{total - MAX_LINES} more files not shown. Narrow the list with path.]" if total > MAX_LINES
          lines.join("\n")
        end

        private

        # The file's line: path, type and size, and +why+ it has no text when the type
        # alone or its first bytes say so. A converted type is not converted here.
        def line(file, why)
          why ? "#{file.path} (#{file.content_type}, #{file.human_size}; #{why})" : describe(file)
        end

        def empty(folder)
          folder ? "No files in #{folder}." : 'No files in this chat yet.'
        end
      end
    end
  end
end
