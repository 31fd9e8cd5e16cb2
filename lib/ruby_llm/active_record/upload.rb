# frozen_string_literal: true

require 'digest'
require 'stringio'
require 'tempfile'

module RubyLLM
  module ActiveRecord
    # The content of one write, measured before it reaches the database: its size,
    # SHA-256 digest, content type and blob. A String or an IO becomes a new blob; an
    # Active Storage blob, or an attachment of one, is kept as it is, so a message's
    # attachment and the chat's file share one copy.
    class Upload # :nodoc:
      CHUNK = 1024 * 1024
      HEAD = 512

      attr_reader :byte_size, :digest, :content_type

      def initialize(path, content, content_type)
        @path = path
        @shared = shared_blob(content)
        if @shared
          measure_blob(@shared)
        else
          @io = spool(content)
        end
        @content_type = content_type || RubyLLM::FileStore::Native.content_type(path, @head)
      end

      # Whether the blob is one this write uploads (not an existing one it shares).
      def uploaded?
        @shared.nil?
      end

      # The blob: the shared one, or a new one uploaded to the service now. Its row is
      # inserted first (as Blob.create_and_upload! does, so a key collision is caught
      # before the upload), under the process's lock on a SQLite database; the bytes go
      # to the service after, holding no lock.
      def blob
        return @blob if @blob
        return @blob = @shared if @shared

        @blob = ChatLock.writing(::ActiveStorage::Blob) do
          ::ActiveStorage::Blob.create_after_unfurling!(
            io: @io, filename: File.basename(@path), content_type: @content_type, identify: false
          )
        end
        @blob.upload_without_unfurling(@io)
        @blob
      ensure
        close
      end

      def close
        @io.close! if @io.respond_to?(:close!)
      end

      # Purges the blob this write uploaded, after a write that failed, unless a row
      # uses it after all.
      def discard
        ChatFile.purge_if_unused(@blob) if @blob && uploaded?
      end

      private

      def shared_blob(content)
        case content
        when ::ActiveStorage::Blob then content
        when ::ActiveStorage::Attachment then content.blob
        when ::ActiveStorage::Attached::One
          content.attachment&.blob || raise(ArgumentError,
                                            "content for #{@path} is an attachment with no file attached")
        end
      end

      # An existing blob is read once, in chunks, for the digest the store promises
      # (Active Storage keeps only an MD5).
      def measure_blob(blob)
        sha = Digest::SHA256.new
        @head = String.new(encoding: Encoding::BINARY)
        blob.download do |chunk|
          @head << chunk.byteslice(0, HEAD - @head.bytesize) if @head.bytesize < HEAD
          sha << chunk
        end
        @byte_size = blob.byte_size
        @digest = sha.hexdigest
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
        file = Tempfile.new('ruby_llm_chat_file', binmode: true)
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
        file
      rescue StandardError
        file&.close!
        raise
      end
    end
  end
end
