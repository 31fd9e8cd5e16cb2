# frozen_string_literal: true

module RubyLLM
  class FileStore # :nodoc:
    module RailsStore
      # Where an Active Storage store keeps its ranked search's index (Passages): a row
      # of its owner's at a path no file may take (Passages::SAVED_PATH), which no
      # listing shows, written as a file is and destroyed with the chat like its files.
      module SavedPassages # :nodoc:
        def saved_passages(most)
          db do
            row = @view.own_row_at(Passages::SAVED_PATH)
            row.file.download.b if row && row.byte_size <= most
          end
        end

        def save_passages(bytes)
          put_row(Passages::SAVED_PATH, bytes, 'application/octet-stream')
          nil
        end
      end
    end
  end
end
