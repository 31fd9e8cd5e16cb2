# frozen_string_literal: true

module RubyLLM
  class FileStore
    module Tools
      # write_file: creates a file, or replaces one the model has read as it is now.
      class WriteFile < Base
        tool 'write_file', offered: :by_default, order: 4
        description "Creates a file in this chat's files, or replaces one. Read a file with read_file before " \
                    'replacing it.'
        argument :path, type: 'string', description: 'The file to write, like "notes/summary.md".'
        argument :content, type: 'string', description: 'The whole content of the file.'

        # Writes +content+ to +path+, when the model read the file there as it is.
        def execute(path:, content:)
          path = FileStore.path(path)
          raise ArgumentError, "content must be a string, the whole text of the file, not #{content.class}" unless
            content.is_a?(String)

          check_writable(path)
          refuse_large(path, content.bytesize)
          store.with_lock do
            existing = store[path]
            check_read(existing) if existing
            written = wrote(store.write(path, content))
            "Wrote #{describe(written)}"
          end
        end
      end
    end
  end
end
