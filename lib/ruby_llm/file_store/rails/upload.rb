# frozen_string_literal: true

require 'digest/sha2'
require 'stringio'
require 'tempfile'

module RubyLLM
  class FileStore # :nodoc:
    module RailsStore
      # How an Upload measures its content: size, SHA-256 digest and first bytes.
      module Measuring # :nodoc:
        private

        # The size, digest and first bytes of +content+: known already for a
        # MeasuredBlob, read for another blob, spooled from anything else.
        def measure(content)
          if content.is_a?(AttachmentSource::MeasuredBlob)
            @byte_size = content.blob.byte_size
            @digest = content.digest
            @head = content.head
          elsif @shared
            measure_blob(@shared)
          else
            @io = spool(content)
          end
        end

        # An existing blob is read once, in chunks, for the digest the store promises
        # (Active Storage keeps only an MD5).
        def measure_blob(blob)
          sha = Digest::SHA256.new
          @head = String.new(encoding: Encoding::BINARY)
          blob.download do |chunk|
            @head << chunk.byteslice(0, Upload::HEAD - @head.bytesize) if @head.bytesize < Upload::HEAD
            sha << chunk
          end
          @byte_size = blob.byte_size
          @digest = sha.hexdigest
        end
      end

      # The content of one write, measured before it reaches the database: its size,
      # SHA-256 digest, content type and blob. A String or an IO becomes a new blob; an
      # Active Storage blob, or an attachment of one, is kept as it is, so a message's
      # attachment and the chat's file share one copy.
      class Upload # :nodoc:
        include Measuring

        CHUNK = 1024 * 1024
        HEAD = 512
        # The key in the metadata of the blobs this store uploads: the only blobs
        # RubyLLM::ActiveRecord::Tidy removes.
        OWN = 'ruby_llm_file_store'
        # The prefix of the temporary files uploads are spooled to (see #tempfile).
        SPOOL = 'ruby_llm_chat_file'

        attr_reader :byte_size, :digest, :content_type
        # The blob of the version this write replaces, once known.
        attr_accessor :replaced

        def initialize(path, content, content_type)
          @path = path
          @shared = shared_blob(content)
          measure(content)
          @content_type = content_type || RubyLLM::FileStore::Native.content_type(path, @head)
        end

        # Whether the blob is one this write uploads (not an existing one it shares).
        def uploaded?
          @shared.nil?
        end

        # Makes the blob's row, then sends its bytes to the service, holding no lock.
        # The row comes first, marked as this store's (OWN in its metadata), so no byte
        # reaches the service before a row that names it: outside a transaction it is
        # committed at once, and a write stopped at any line (or a process killed
        # outright) leaves at most an unattached row of the store's, which the write's
        # own cleanup or RubyLLM::ActiveRecord::Tidy removes, its object with it. Inside
        # a transaction already open (with_lock, or the application's) the row commits
        # with that transaction.
        def upload!
          return if @shared || @blob

          blob = ::ActiveStorage::Blob.build_after_unfurling(
            io: @io, filename: File.basename(@path), content_type: @content_type, identify: false,
            metadata: { OWN => true }
          )
          # Known before the row is saved, so a save stopped halfway is tidied by its key.
          @blob = blob
          ChatLock.writing(::ActiveStorage::Blob) { blob.save! }
          @sending = true
          blob.upload_without_unfurling(@io)
          @sending = false
          close
        end

        # Whether the upload was stopped while its bytes were on their way to a
        # service over the network, which may still store them once the store has
        # deleted its key (an S3 server finishes a request it was sent whole). The Disk
        # service writes in this process: stopped, it writes no more.
        def in_flight?
          @sending == true && @blob.service.class.name != 'ActiveStorage::Service::DiskService'
        end

        # For an upload stopped in flight: deletes what the service has of it now, and
        # leaves its row, which names whatever the service stores later, for
        # RubyLLM::ActiveRecord::Tidy.
        def abandon
          @blob.service.delete(@blob.key)
        end

        # The blob: the shared one, or the one #upload! made and sent.
        def blob
          return @shared if @shared
          raise ArgumentError, "the content of #{@path} was not uploaded" unless @blob

          @blob
        end

        def close
          @io.close! if @io.respond_to?(:close!)
        end

        # The blob this write uploads, once #upload! has begun; nil for a shared one.
        def uploaded_blob
          @blob if uploaded?
        end

        # Removes +blob+ if nothing uses it: its row (and bytes) when no attachment
        # does, its bytes alone when it has no row. For what a write or a with_lock
        # stopped halfway leaves; a blob in use stays. The row is found by its key: a
        # save stopped halfway may have committed a row the blob object has no id of.
        def self.tidy(blob)
          row = ::ActiveStorage::Blob.find_by(key: blob.key)
          row ? RubyLLM::ActiveRecord::ChatFile.purge_if_unused(row) : blob.service.delete(blob.key)
        end

        private

        def shared_blob(content)
          case content
          when ::ActiveStorage::Blob then content
          when ::ActiveStorage::Attachment, AttachmentSource::MeasuredBlob then content.blob
          when ::ActiveStorage::Attached::One
            content.attachment&.blob || raise(ArgumentError,
                                              "content for #{@path} is an attachment with no file attached")
          end
        end

        def spool(content)
          return string_io(content) if content.is_a?(String)

          unless content.respond_to?(:read)
            raise ArgumentError, "content for #{@path} must be a String, an IO or an Active Storage blob, " \
                                 "not #{content.class}"
          end

          tempfile(content)
        end

        def string_io(content)
          bytes = content.b
          @byte_size = bytes.bytesize
          @digest = Digest::SHA256.hexdigest(bytes)
          @head = bytes.byteslice(0, HEAD)
          StringIO.new(bytes)
        end

        # An IO is copied to a temporary file while it is measured, so a 200 MB upload
        # is never held in memory and the service gets a file it can rewind.
        def tempfile(io)
          sha = Digest::SHA256.new
          file = Tempfile.new(SPOOL, binmode: true)
          @head = String.new(encoding: Encoding::BINARY)
          buffer = String.new(capacity: CHUNK, encoding: Encoding::BINARY)
          while io.read(CHUNK, buffer)
            @head << buffer.byteslice(0, HEAD - @head.bytesize) if @head.bytesize < HEAD
            sha << buffer
            file.write(buffer)
          end
          @byte_size = file.size
          @digest = sha.hexdigest
          file.flush
          file.rewind
          spooled = file
        ensure
          # Removed on any way out but success: an error, a Timeout, Thread#kill.
          file&.close! unless spooled
        end
      end
    end
  end
end
