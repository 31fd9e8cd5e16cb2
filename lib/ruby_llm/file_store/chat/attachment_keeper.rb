# frozen_string_literal: true

require 'digest/sha2'

module RubyLLM
  class FileStore
    # Keeps a chat's attachments in its store, once each: under the file's own name,
    # or <tt>report-2.pdf</tt> when a different file has that name already.
    class AttachmentKeeper # :nodoc:
      def initialize(store, on_write, chat: nil, config: nil)
        @store = store
        @on_write = on_write
        @chat = chat
        @config = config
        @kept = {}.compare_by_identity
        @lock = StoreLock.new # held while the attachment uploads, so a wait can be stopped
      end

      # The StoredFile for +attachment+, kept now if it was not; nil for an attachment
      # the store cannot hold (a URL, or a file already uploaded to the provider).
      def keep(attachment)
        @lock.synchronize do
          return @kept[attachment] if @kept.key?(attachment)

          @kept[attachment] = store_attachment(attachment)
        end
      end

      # A name for +filename+ that is one file-name part: no folders, no leading
      # dots, no control character or line separator (FileStore.path refuses them).
      def self.filename(filename)
        name = File.basename(filename.to_s.tr('\\', '/')).gsub(/[\p{Cc}\u2028\u2029]/, '').sub(/\A\.+/, '').strip
        name.empty? ? 'attachment' : name
      end

      private

      # Each attachment once: a <tt>attachment.file_store.ruby_llm</tt> event
      # saying whether it was kept, was kept already, or is sent as it is.
      def store_attachment(attachment)
        payload = { chat: @chat, store: @store, filename: attachment.filename.to_s }
        Instrumentation.instrument(:attachment, payload, config: @config) do |event|
          if !Seams.keepable?(attachment)
            event[:outcome] = :not_keepable
            nil
          elsif @store.respond_to?(:write_refusal) && @store.write_refusal
            refused(event)
          else
            keep_bytes(attachment, event)
          end
        end
      end

      def keep_bytes(attachment, event)
        kept = kept_blob(attachment)
        return already_kept(event, kept) if kept
        return too_large(event, blob_of(attachment).byte_size) if over_limit?(blob_of(attachment)&.byte_size)

        content = Seams.bytes(attachment).b
        return too_large(event, content.bytesize) if over_limit?(content.bytesize)

        keep_content(attachment, content, event)
      end

      def keep_content(attachment, content, event)
        digest = Digest::SHA256.hexdigest(content)
        path, existing = place(self.class.filename(attachment.filename), digest)
        event.merge!(path:, bytes: content.bytesize)
        return already_kept(event, existing) if existing

        source = source_of(content, digest)
        event.merge!(outcome: source ? :kept : :other_owners, shared_blob: !(source.nil? || source.is_a?(String)))
        source && @store.write(path, source).tap { |file| kept(file, attachment) }
      end

      # A file just kept from +attachment+: the store may read its first conversion from
      # the bytes ruby_llm read (the Active Storage store's KeptBlobs#kept_from).
      def kept(file, attachment)
        @store.kept_from(file, attachment) if @store.respond_to?(:kept_from)
        @on_write&.call(file)
      end

      def already_kept(event, file)
        event.merge!(outcome: :already_kept, path: file.path, bytes: file.byte_size)
        file
      end

      # An attachment the store writes nothing for (see RailsStore::Ownerless): sent
      # as the message has it.
      def refused(event)
        event.merge!(outcome: :refused, error: @store.write_refusal)
        nil
      end

      # The file the store keeps already for +attachment+, an Active Storage blob's
      # (an acts_as_message record's, see MessageAttachments), found by the blob without
      # downloading it; nil for any other attachment, or a blob the store does not keep.
      def kept_blob(attachment)
        blob = @store.respond_to?(:kept_blob) && blob_of(attachment)
        blob && @store.kept_blob(blob)
      end

      # The Active Storage blob +attachment+ reads from, or nil.
      def blob_of(attachment)
        return unless defined?(::ActiveStorage::Blob) && attachment.respond_to?(:source)

        source = attachment.source
        source = source.blob if defined?(::ActiveStorage::Attachment) && source.is_a?(::ActiveStorage::Attachment)
        source if source.is_a?(::ActiveStorage::Blob)
      end

      # Whether +bytes+ is over the store's max_file_size, the ceiling of what it keeps
      # of the conversation's attachments as of what the tools write.
      def over_limit?(bytes)
        bytes && @store.respond_to?(:max_file_size) && bytes > @store.max_file_size
      end

      # An attachment over the store's limit: never cut, it is sent as the message has it.
      def too_large(event, bytes)
        limit = StoredFile.new(path: 'x', byte_size: @store.max_file_size, content_type: nil).human_size
        size = StoredFile.new(path: 'x', byte_size: bytes, content_type: nil).human_size
        event.merge!(outcome: :too_large, bytes:,
                     error: "#{event[:filename]} is #{size}, over this store's limit of #{limit} a file")
        nil
      end

      # What the store writes for the attachment: its bytes, or what the store would
      # rather keep (an Active Storage store shares the blob of the message holding
      # them); nil when the store must not keep them (another owner's file).
      def source_of(content, digest)
        @store.respond_to?(:attachment_content) ? @store.attachment_content(content, digest) : content
      end

      # The path for a file named +name+ with +digest+, and the file already there
      # when it holds the same bytes: the name itself, or the first free
      # <tt>name-N</tt>.
      def place(name, digest)
        (1..).each do |n|
          path = n == 1 ? name : Native.numbered(name, n)
          existing = @store[path]
          return [path, nil] unless existing
          return [path, existing] if existing.digest == digest
        end
      end
    end
  end
end
