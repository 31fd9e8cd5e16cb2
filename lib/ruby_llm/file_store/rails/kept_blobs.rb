# frozen_string_literal: true

module RubyLLM
  class FileStore # :nodoc:
    module RailsStore
      # Attachments the Active Storage store keeps already, known by their blob: the
      # store shares a message's blob rather than copying it (AttachmentSource), so an
      # attachment of a later request is found by its blob's id, without downloading it.
      module KeptBlobs # :nodoc:
        # The StoredFile this store sees that shares +blob+, or nil.
        def kept_blob(blob)
          db do
            rows = @view.scope.without_text.joins(:file_attachment)
                        .where(active_storage_attachments: { blob_id: blob.id }).order(:id).to_a
            rows.lazy.map { |row| @view.row_at(row.path) }.find { |seen| rows.include?(seen) }&.stored_file
          end
        end
      end
    end
  end
end
