# frozen_string_literal: true

require 'digest/md5'

module RubyLLM
  class FileStore # :nodoc:
    module RailsStore
      # Where a chat's store takes an attachment of the conversation from. In an
      # acts_as_chat chat the message holding it has the bytes in Active Storage
      # already, so the chat's file shares that blob (one copy, purged once nothing uses
      # it). And an attachment kept as one owner's file is never copied again by a store
      # without that owner, as a shared file or as another owner's.
      class AttachmentSource # :nodoc:
        # A message's blob whose bytes the caller has, so its SHA-256 +digest+ and
        # first bytes (+head+) are known: the write that shares it need not download it.
        MeasuredBlob = Struct.new(:blob, :digest, :head)

        def initialize(chat, owner)
          @chat = chat
          @keys = [RubyLLM::ActiveRecord::ChatFile.key_for(owner), ''].uniq
        end

        # A message's blob holding +bytes+ that no other owner's file uses (a
        # MeasuredBlob); else +bytes+,
        # unless no such blob is free or another owner's file holds the same +digest+,
        # when nil: the store keeps nothing, and the attachment goes to the model as the
        # message has it.
        def content(bytes, digest)
          blobs = message_blobs(bytes)
          if blobs.any?
            free = blobs.find { |blob| !others_blob_ids(blobs).include?(blob.id) }
            return free && MeasuredBlob.new(free, digest, bytes.byteslice(0, Upload::HEAD))
          end

          others_rows.exists?(digest:) ? nil : bytes
        end

        private

        # The blobs of the chat's messages (acts_as_chat's messages_association) that
        # hold +bytes+, by Active Storage's own checksum and size.
        def message_blobs(bytes)
          return [] unless @chat.respond_to?(:messages_association)

          messages = @chat.messages_association
          ids = messages.unscope(:order).select(messages.klass.primary_key)
          ::ActiveStorage::Blob.joins(:attachments)
                               .where(active_storage_attachments: { record_type: messages.klass.polymorphic_name,
                                                                    record_id: ids })
                               .where(byte_size: bytes.bytesize, checksum: Digest::MD5.base64digest(bytes))
                               .distinct.order(:id).to_a
        end

        def others_blob_ids(blobs)
          @others_blob_ids ||= others_rows.joins(:file_attachment)
                                          .where(active_storage_attachments: { blob_id: blobs.map(&:id) })
                                          .pluck('active_storage_attachments.blob_id')
        end

        # The rows of the chat's other owners, which the store does not see.
        def others_rows
          RubyLLM::ActiveRecord::ChatFile.where(chat_type: @chat.class.polymorphic_name, chat_id: @chat.id)
                                         .where.not(owner_key: @keys)
        end
      end
    end
  end
end
