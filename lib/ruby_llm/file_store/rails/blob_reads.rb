# frozen_string_literal: true

module RubyLLM
  class FileStore
    module RailsStore
      # Reads of a file's blob that never hold it whole in the app: its first bytes
      # as a range, and its bytes as a file on disk for a convert worker.
      module BlobReads
        # The first +bytes+ bytes of the file at +path+, asked of the service as a
        # range: telling a 200 MB PDF from a page named as one downloads 1 KB of it.
        def head(path, bytes) # :nodoc:
          kept, blob = kept_or_blob(FileStore.path(path))
          return kept.byteslice(0, bytes) if kept
          return ''.b if bytes <= 0 || blob.byte_size.zero?

          blob.service.download_chunk(blob.key, 0...[bytes, blob.byte_size].min).b
        end

        # Runs the block with the bytes of +file+ in a file on disk, open (the Disk
        # service's own, or Active Storage's Blob#open: downloaded a chunk at a time,
        # its checksum checked), so a document goes to its convert worker without
        # being held whole in the app; or with them as a String when the store kept
        # them (a blob it just shared). Holds no database connection while the block
        # runs.
        def with_stored_io(file, &) # :nodoc:
          kept, blob = kept_or_blob(file.path)
          return yield kept if kept

          on_disk = local_path(blob)
          # The Disk service's own file, opened as it is: Blob#open would copy it
          # through 5 MB Strings, which the app's heap then keeps.
          return File.open(on_disk, 'rb', &) if on_disk && File.file?(on_disk)

          blob.open(&)
        end

        private

        # Where the Disk service keeps +blob+, or nil for a service that keeps it
        # elsewhere. A mirror answers by its primary, which may be S3.
        def local_path(blob)
          service = blob.service
          service = service.primary if service.respond_to?(:primary)
          service.path_for(blob.key) if service.respond_to?(:path_for)
        end

        # The bytes of the file at +path+ where the store kept them (KeptBlobs), or its blob.
        def kept_or_blob(path)
          db do
            row = @view.row_at(path) || raise(FileNotFoundError, "No file at #{path}")
            kept = kept_bytes(row)
            [kept, !kept && row.file.blob]
          end
        end
      end
    end
  end
end
