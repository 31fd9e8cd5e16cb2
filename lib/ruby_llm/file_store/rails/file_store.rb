# frozen_string_literal: true

RubyLLM::FileStore.require_active_storage!('RubyLLM::ActiveRecord::FileStore')

require_relative 'chat_file'
require_relative 'chat_files'
require_relative 'attachment_source'
require_relative 'chat_lock'
require_relative 'tidying'
require_relative 'sqlite_wait'
require_relative 'upload'
require_relative 'view'
require_relative 'kept_texts'
require_relative 'kept_blobs'
require_relative 'blob_reads'
require_relative 'saved_passages'
require_relative 'writing'

RubyLLM::FileStore::RailsStore::SQLiteWait.hook!

module RubyLLM
  module ActiveRecord
    # Keeps a chat's files in Active Storage, each a row of ruby_llm_chat_files
    # (RubyLLM::ActiveRecord::ChatFile) with its bytes on whatever service the
    # application uses. The chat is any saved record; destroying it destroys its files.
    #
    #   store = RubyLLM.file_store.active_storage(chat)
    #   store.write("brief.md", "# Brief")
    #
    # With an owner, the store writes files for that owner and sees the owner's files
    # and the files without an owner, the owner's first where both have a path. Without
    # one it sees only the files without an owner:
    #
    #   mine = RubyLLM.file_store.active_storage(chat, owner: Current.user)
    #
    # Content may also be an Active Storage blob or attachment, which the file then
    # shares instead of copying:
    #
    #   store.write("contract.pdf", message.attachments.first)
    class FileStore < RubyLLM::FileStore
      include RailsStore::Tidying
      include RailsStore::KeptTexts
      include RailsStore::KeptBlobs
      include RailsStore::BlobReads
      include RailsStore::SavedPassages
      include RailsStore::Writing

      # The chat record, and the owner record or nil.
      attr_reader :chat, :owner

      def initialize(chat, owner: nil, max_file_size: nil)
        super()
        @chat = saved_record(chat, 'chat')
        @owner = owner && saved_record(owner, 'owner')
        @view = RailsStore::View.new(@chat, [ChatFile.key_for(@owner), ''].uniq)
        self.max_file_size = max_file_size
        ChatFiles.add_to(@chat.class)
        ChatFile.require_table!
      end

      def list(prefix = nil) # :nodoc:
        folder = prefix && "#{FileStore.path(prefix)}/"
        db { @view.rows(folder) }.sort_by(&:path).map(&:stored_file)
      end

      def [](path) # :nodoc:
        path = FileStore.path(path)
        db { @view.row_at(path) }&.stored_file
      end

      def read(path) # :nodoc:
        path = FileStore.path(path)
        db do
          row = @view.row_at(path) || raise(FileNotFoundError, "No file at #{path}")
          kept_bytes(row) || row.file.download.force_encoding(Encoding::BINARY)
        end
      end

      # Writes +content+ (a String, an IO, or an Active Storage blob or attachment to
      # share) for this store's owner. The bytes are uploaded before the chat is locked,
      # so a large upload holds no lock; the blob's row and the file's row are made
      # after, in one transaction, so two processes writing one path leave one row
      # holding one of the two contents. A write stopped any way (an error,
      # Timeout.timeout, Thread#kill) leaves the old file whole and no blob, row or
      # bytes behind.
      def write(path, content, content_type: nil)
        path = FileStore.path(path)
        put_row(path, content, content_type) { db { refuse_overlap(path) } }.stored_file
      end

      # Deletes the file this store sees at +path+: the owner's when there is one (a
      # shared file of the same path then shows again), or else the shared one.
      def delete(path)
        path = FileStore.path(path)
        blob = deleted = nil
        deleted = locked(path) do
          row = @view.row_at(path)
          raise RubyLLM::FileStore.folder_not_file(path) if row.nil? && @view.folder?(path)

          blob = touching(row&.file_blob)
          row&.destroy!
          row&.stored_file
        end
      ensure
        RailsStore::Interrupts.deferred { tidy_after(blob) } if deleted.nil?
      end

      # Runs the block in a database transaction holding a lock on the chat's row, so
      # processes, and threads of a Puma or Sidekiq process, that share the chat do not
      # interleave their edits. Reentrant. What the block writes and deletes is kept
      # only when it returns: an exception, a throw, +break+ or +return+,
      # Timeout.timeout and Thread#kill undo all of it.
      def with_lock(&)
        locked(&)
      end

      # The text a converter made of this version of +file+, from the row.
      def cached_text(file)
        db { text_row(file)&.text }
      end

      # Keeps +text+ in the row of this version of +file+, without touching updated_at.
      # A lock refused (SQLite, inside a job's transaction another process wrote
      # since) leaves the text unkept: the read that converted it still has it, and
      # the next read converts again.
      def cache_text(file, text)
        # Under the lock, so a file replaced meanwhile does not get the old text.
        with_lock { text_row(file)&.keep_text(text) }
        text
      rescue LockError => e
        RubyLLM.logger.debug("ruby_llm-file_store: the text of #{file.path.inspect} was not kept (#{e.message})")
        text
      end

      # What this store keeps for an attachment of the conversation, given its +bytes+
      # and their SHA-256 +digest+: the blob of the chat's message that holds them, to
      # share; +bytes+; or nil for another owner's file (see RailsStore::AttachmentSource).
      def attachment_content(bytes, digest) # :nodoc:
        db { RailsStore::AttachmentSource.new(@chat, @owner).content(bytes, digest) }
      end

      def inspect # :nodoc:
        "#<#{self.class.name} #{@chat.class.name} #{@chat.id}#{" owner: #{@owner.class.name} #{@owner.id}" if @owner}>"
      end

      private

      def saved_record(record, name)
        return record if record.is_a?(::ActiveRecord::Base) && record.persisted?

        raise ArgumentError, "the #{name} of an Active Storage file store must be a saved Active Record record, " \
                             "not #{record.inspect}"
      end

      # Each call takes a connection only for as long as it runs, so threads that use a
      # store, such as tools run concurrently, hand theirs back to the pool. One an
      # interrupt left (see RailsStore::Interrupts.dropping_if_cut) may be cut off
      # mid-query, so it is dropped rather than handed to the next thread.
      def db(&block)
        RailsStore::Interrupts.with_connection(ChatFile.connection_pool) do |connection|
          RailsStore::SQLiteWait.adopt(connection, ChatFile)
          RailsStore::Interrupts.dropping_if_cut(connection, &block)
        end
      end

      # with_lock for a change to the file at +path+, which a refusal names.
      def locked(path = nil, &block)
        tidying { RailsStore::ChatLock.hold(@chat, changing: path, &block) }
      end

      def text_row(file) = file.digest && @view.row_at(file.path, @view.scope.where(digest: file.digest))
    end
  end
end
