# frozen_string_literal: true

RubyLLM::FileStore.require_active_storage!('RubyLLM::ActiveRecord::FileStore')

require_relative 'chat_file'
require_relative 'chat_files'
require_relative 'attachment_source'
require_relative 'chat_lock'
require_relative 'sqlite_wait'
require_relative 'upload'
require_relative 'view'

RubyLLM::ActiveRecord::SQLiteWait.hook!

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
    #   store.write("contract.pdf", message.attachment)
    class FileStore < RubyLLM::FileStore
      # The chat record, and the owner record or nil.
      attr_reader :chat, :owner

      def initialize(chat, owner: nil, max_file_size: nil)
        super()
        @chat = saved_record(chat, 'chat')
        @owner = owner && saved_record(owner, 'owner')
        @view = View.new(@chat, [ChatFile.key_for(@owner), ''].uniq)
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
          row.file.download.force_encoding(Encoding::BINARY)
        end
      end

      # Writes +content+ (a String, an IO, or an Active Storage blob or attachment to
      # share) for this store's owner. The bytes are uploaded before the chat is locked,
      # so a large upload holds no lock; the row changes in one transaction, so two
      # processes writing one path leave one row holding one of the two contents.
      def write(path, content, content_type: nil)
        path = FileStore.path(path)
        upload = Upload.new(path, content, content_type)
        begin
          db { refuse_overlap(path) }
          blob = db { upload.blob }
          row = with_lock { save_row(path, upload, blob) }
        rescue StandardError
          db { upload.discard }
          raise
        ensure
          upload.close
        end
        row.stored_file
      end

      # Deletes the file this store sees at +path+: the owner's when there is one (a
      # shared file of the same path then shows again), or else the shared one.
      def delete(path)
        path = FileStore.path(path)
        with_lock do
          row = @view.row_at(path)
          raise ArgumentError, "#{path} is a folder, not a file" if row.nil? && @view.folder?(path)

          row&.destroy!
          row&.stored_file
        end
      end

      # Runs the block in a database transaction holding a lock on the chat's row, so
      # processes, and threads of a Puma or Sidekiq process, that share the chat do not
      # interleave their edits. Reentrant. Files written in the block are undone if it
      # raises.
      def with_lock(&block)
        ChatLock.hold(@chat, &block)
      end

      # The text a converter made of this version of +file+, from the row.
      def cached_text(file)
        db { text_row(file)&.text }
      end

      # Keeps +text+ in the row of this version of +file+, without touching updated_at.
      def cache_text(file, text)
        # Under the lock, so a file replaced meanwhile does not get the old text.
        with_lock { text_row(file)&.keep_text(text) }
        text
      end

      # What this store keeps for an attachment of the conversation, given its +bytes+
      # and their SHA-256 +digest+: the blob of the chat's message that holds them, to
      # share; +bytes+; or nil for another owner's file (see AttachmentSource).
      def attachment_content(bytes, digest) # :nodoc:
        db { AttachmentSource.new(@chat, @owner).content(bytes, digest) }
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
      # store, such as tools run concurrently, hand theirs back to the pool.
      def db
        ChatFile.connection_pool.with_connection do |connection|
          SQLiteWait.adopt(connection, ChatFile)
          yield
        end
      end

      def text_row(file)
        file.digest && @view.row_at(file.path, @view.scope.where(digest: file.digest))
      end

      def save_row(path, upload, blob)
        refuse_overlap(path)
        row = @view.own_row_at(path) || ChatFile.new(chat: @chat, owner: @owner, path:)
        row.replace_content(blob, uploaded: upload.uploaded?, content_type: upload.content_type,
                                  byte_size: upload.byte_size, digest: upload.digest)
        row.save!
        row
      end

      def refuse_overlap(path)
        raise ArgumentError, "#{path} is a folder, not a file" if @view.folder?(path, @view.own_scope)

        parent = @view.own_file_among_parents(path)
        raise ArgumentError, "#{parent} is a file, not a folder" if parent
      end
    end
  end
end
