# frozen_string_literal: true

module RubyLLM
  class FileStore # :nodoc:
    module RailsStore
      # How an Active Storage store writes a row: the bytes uploaded holding no lock,
      # then the row made or replaced under the chat's lock (see FileStore#write).
      module Writing # :nodoc:
        private

        # Writes +content+ at +path+ for this store's owner, after the check the block
        # makes (see #write); the row.
        def put_row(path, content, content_type)
          upload = RailsStore::Upload.new(path, content, content_type)
          row = nil
          begin
            yield if block_given?
            db { uploading(path, upload) }
            touching(upload.uploaded_blob)
            row = locked(path) { save_row(path, upload) }
          ensure
            finish(upload, saved: !row.nil?)
          end
          row
        end

        # The blob's row is the write's first (see Upload#upload!), the first of the
        # application's transaction when the store is called in one: SQLite refusing it
        # is a LockError, as the chat's lock refused would be.
        def uploading(path, upload)
          name = "#{@chat.class.name} #{@chat.id}"
          RailsStore::SQLiteWait.refusing_locked(name, path:) { upload.upload! }
        end

        def save_row(path, upload)
          refuse_overlap(path) unless path == Passages::SAVED_PATH
          row = @view.own_row_at(path) || RubyLLM::ActiveRecord::ChatFile.new(chat: @chat, owner: @owner, path:)
          upload.replaced = touching(row.file_blob) if row.persisted?
          row.replace_content(upload.blob, uploaded: upload.uploaded?, content_type: upload.content_type,
                                           byte_size: upload.byte_size, digest: upload.digest)
          row.save_unique!
        end

        def refuse_overlap(path)
          raise RubyLLM::FileStore.folder_not_file(path) if @view.folder?(path, @view.own_scope)

          parent = @view.own_file_among_parents(path)
          raise RubyLLM::FileStore.file_not_folder(parent) if parent
        end
      end
    end
  end
end
