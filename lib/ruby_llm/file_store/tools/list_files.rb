# frozen_string_literal: true

module RubyLLM
  class FileStore
    module Tools
      # list_files: one line per file, sorted by path.
      class ListFiles < Base
        MAX_LINES = 1000

        def self.description
          "Lists this chat's files, one line each: path (content type, size). Pass path to list one folder."
        end

        def self.parameters
          { path: { type: 'string', description: 'A folder to list, like "reports". Leave out for every file.',
                    required: false } }
        end

        private

        def run(path: nil)
          folder = scope(path)
          files = folder ? store.list(folder) : store.list
          files = [store[folder]].compact if files.empty? && folder
          return empty(folder) if files.empty?

          lines = files.first(MAX_LINES).map { |file| describe(file) }
          lines << "[#{files.size - MAX_LINES} more files not shown. Narrow the list with path.]" if
            files.size > MAX_LINES
          lines.join("\n")
        end

        def empty(folder)
          folder ? "No files in #{folder}." : 'No files in this chat yet.'
        end
      end
    end
  end
end
