# frozen_string_literal: true

require 'digest/sha2'

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

        # Remembers that +attachment+, which ruby_llm has read (to send the question),
        # holds the bytes of +file+, just kept from it: the first read of the file, its
        # first conversion when the model reads it, takes them from the attachment
        # rather than downloading the blob again. Only the attachment is held, whose
        # bytes ruby_llm keeps for the message anyway.
        def kept_from(file, attachment)
          @kept_from ||= {}
          @kept_from[file.path] = [file.digest, attachment] if file.digest
        end

        private

        # The bytes of +row+ that an attachment kept as it holds (#kept_from), once,
        # or nil: only while the row holds the same bytes, checked by their digest.
        def kept_bytes(row)
          digest, attachment = @kept_from&.delete(row.path)
          return unless digest && digest == row.digest

          bytes = Seams.bytes(attachment).b
          bytes if Digest::SHA256.hexdigest(bytes) == digest
        rescue StandardError
          nil
        end
      end
    end
  end
end
