# frozen_string_literal: true

module RubyLLM
  class FileStore # :nodoc:
    module RailsStore
      # Purges a blob no attachment uses, its row and its file on the service, so that
      # a process killed between the two (kill -9, the OOM killer) never leaves a file
      # that no row names, which nothing could find: the file goes first, and a
      # process killed before the row leaves an unused row of the store's, which
      # RubyLLM::ActiveRecord::Tidy finds.
      # Timeout and Thread#kill wait for both.
      module UnusedBlobs # :nodoc:
        module_function

        def purge(blob)
          return unless blob

          in_use = ::ActiveStorage::Attachment.where(blob_id: blob.id).select(:blob_id)
          Interrupts.deferred do
            removed = if SQLiteWait.sqlite?(::ActiveStorage::Blob)
                        purge_checked(blob, in_use)
                      else
                        purge_locked(blob, in_use)
                      end
            # A blob whose row is gone already (rolled back with the write that made it)
            # still has its file on the service.
            blob.delete if !removed && !::ActiveStorage::Blob.exists?(blob.id)
          end
        rescue ::ActiveRecord::InvalidForeignKey
          # A row of Active Storage's points at it (a variant's): its own purge removes
          # those, and does nothing if the blob was attached meanwhile.
          blob.purge
        end

        # The row locked while no attachment uses it, its file deleted, then the row, in
        # one transaction: an attachment made meanwhile waits for the lock and then
        # finds no blob.
        def purge_locked(blob, in_use)
          ::ActiveStorage::Blob.transaction(requires_new: true) do
            next false unless ::ActiveStorage::Blob.where(id: blob.id).where.not(id: in_use).lock.pick(:id)

            blob.delete
            ::ActiveStorage::Blob.where(id: blob.id).delete_all.positive?
          end
        end

        # On SQLite, where the store's writes take the database's lock in turn, with no
        # transaction held around the file's deletion (one open here made Active
        # Storage's own purge jobs, whose deferred transactions read before they write,
        # fail with SQLite3::BusyException): the row is found unused, its file goes,
        # then one statement deletes the row where still no attachment points at it.
        # Only the store's own uploads and blobs it shares are purged, and nothing
        # attaches one of those once nothing uses it.
        def purge_checked(blob, in_use)
          ChatLock.writing(RubyLLM::ActiveRecord::ChatFile) do
            next false unless ::ActiveStorage::Blob.where(id: blob.id).where.not(id: in_use).exists?

            blob.delete
            ::ActiveStorage::Blob.where(id: blob.id).where.not(id: in_use).delete_all.positive?
          end
        end
      end
    end
  end
end
