# frozen_string_literal: true

require 'digest/sha2'

RubyLLM::FileStore.require_active_storage!('RubyLLM::ActiveRecord::ChatFile')

require_relative 'path_column'
require_relative 'unused_blobs'

module RubyLLM
  module ActiveRecord
    # A chat's file: a row of ruby_llm_chat_files with the path, the owner (nil for a
    # file everyone in the chat sees), content type, size, SHA-256 digest and the text
    # a converter made of it, and the bytes in the Active Storage attachment +file+.
    #
    #   chat.ruby_llm_chat_files.shared.with_attached_file
    #
    # Blobs are shared: a file written from a message's attachment points at that
    # attachment's blob. So the attachment is declared with <tt>dependent: false</tt>
    # and a row purges a blob itself, after its transaction commits, and only when no
    # other attachment uses it.
    #
    # An application that encrypts what the model reads encrypts the text too (Rails 7+):
    #
    #   Rails.application.config.to_prepare do
    #     RubyLLM::ActiveRecord::ChatFile.encrypts :text
    #   end
    class ChatFile < ::ActiveRecord::Base
      self.table_name = 'ruby_llm_chat_files'

      # The columns are NOT NULL and the store always sets the chat, so no query per
      # save checks that it exists.
      belongs_to :chat, polymorphic: true, optional: true
      belongs_to :owner, polymorphic: true, optional: true
      has_one_attached :file, dependent: false

      before_save { self.owner_key = ChatFile.key_of(owner_type, owner_id) }
      # MariaDB and MySQL: what makes a path unique, the column's index holding at
      # most 3,072 bytes (see the ruby_llm_file_store generators).
      before_save { self.path_digest = Digest::SHA256.hexdigest(path) if has_attribute?(:path_digest) }
      # Before has_one_attached's own callback destroys the attachment, and the link with it.
      before_destroy(prepend: true) { @blob_to_purge = file_blob }
      after_commit :purge_unused_blob
      after_rollback :purge_uploaded_blob

      # Files without an owner, which every store of the chat sees.
      scope :shared, -> { where(owner_key: '') }
      # The files of +owner+.
      scope :owned_by, ->(owner) { where(owner_key: key_for(owner)) }
      # Every column but the text, which can be long and is read only when asked for.
      scope :without_text, -> { select(column_names - ['text']) }
      # Every column but the text, with the checksum Active Storage keeps on the row's
      # blob as +blob_checksum+ (see #checksum), in the one query.
      scope :listed, lambda {
        left_joins(:file_blob).select(*(column_names - ['text']).map { |name| arel_table[name] },
                                      ::ActiveStorage::Blob.arel_table[:checksum].as('blob_checksum'))
      }

      # The owner_key of +owner+: "" for none, "User/42" for a User.
      def self.key_for(owner)
        owner ? key_of(owner.class.polymorphic_name, owner.id) : ''
      end

      def self.key_of(type, id) # :nodoc:
        type.nil? || id.nil? ? '' : "#{type}/#{id}"
      end

      # Saves the row and returns it. The unique index refuses a path the database takes
      # for one the chat has (a column whose collation pads, as MySQL's utf8mb4_bin
      # does: "a.txt " is "a.txt"): an error naming the path, not the database's words.
      # (No savepoint: its ROLLBACK TO, which Rails sends as a killed thread unwinds, met
      # a MySQL connection still waiting for the query the kill cut off.)
      #
      # A path longer than the column holds is refused, not cut (MySQL cuts it with
      # strict mode off), as is one longer than PostgreSQL's index holds.
      def save_unique! # :nodoc:
        RubyLLM::FileStore::RailsStore::PathColumn.saving(self) { save! }
        self
      rescue ::ActiveRecord::RecordNotUnique
        raise RubyLLM::FileStore::Error, "#{path.inspect} was not written: the database takes it for the path of " \
                                         'a file this chat has already (its column pads or folds paths; the ' \
                                         'ruby_llm_file_store:upgrade generator makes it compare them byte for byte)'
      end

      # Points the row at +blob+ with the file's metadata. +uploaded+ says the blob was
      # made for this row, so it is purged if the row is never saved.
      def replace_content(blob, uploaded:, content_type:, byte_size:, digest:) # :nodoc:
        previous = file_blob if persisted?
        @blob_to_purge = previous if previous && previous != blob
        @uploaded_blob = blob if uploaded
        self.file = blob
        assign_attributes(content_type:, byte_size:, digest:, text: nil)
        # A row read by the +listed+ scope carries its old blob's checksum.
        self[:blob_checksum] = blob.checksum if has_attribute?(:blob_checksum)
        self
      end

      # Keeps +text+ as what a converter made of this version, without touching
      # updated_at (an edit compares it for files too large to digest). Saved through
      # the model, so an application's <tt>encrypts :text</tt> applies.
      def keep_text(text) # :nodoc:
        self.text = text
        save!(touch: false)
      end

      # The row as the store hands it out. Its stamp is the blob's #checksum: past
      # the digest limit a version is the size, updated_at and stamp (see
      # RubyLLM::FileStore::Reads), and updated_at alone is the same for two writes
      # within one tick of the column (a second, on a MySQL DATETIME without
      # fractions) or when set back.
      def stored_file
        StoredFile.new(path:, byte_size:, content_type:, digest:, updated_at:, stamp: checksum)
      end

      # The checksum Active Storage keeps on the file's blob (an MD5, in Base64):
      # read with the row by the +listed+ scope, or from the blob a write attached;
      # else the blob is looked up. Through the attachment, not +file_blob+: on Rails
      # 7.1 and later that association still holds the blob replaced by a write.
      def checksum
        has_attribute?(:blob_checksum) ? self[:blob_checksum] : file.attachment&.blob&.checksum
      end

      # Purges +blob+ unless an attachment still uses it (RailsStore::UnusedBlobs).
      def self.purge_if_unused(blob)
        RubyLLM::FileStore::RailsStore::UnusedBlobs.purge(blob)
      end

      # Raises RubyLLM::ConfigurationError, naming the commands to run, unless the
      # table and Active Storage's exist, or naming the setting, unless a MariaDB or
      # MySQL connection speaks utf8mb4 (see PathColumn.require_utf8mb4!). Once they
      # do, they are not asked again.
      def self.require_table!
        return @require_table ||= RubyLLM::FileStore::RailsStore::PathColumn.require_utf8mb4!(self) || true if
          table_ready?

        storage = missing_storage_tables
        unless storage.empty?
          raise RubyLLM::ConfigurationError,
                "Active Storage's tables #{storage.join(' and ')} do not exist yet: run " \
                'bin/rails active_storage:install, then bin/rails db:migrate'
        end
        raise RubyLLM::ConfigurationError,
              "The table #{table_name} does not exist yet: run bin/rails generate ruby_llm_file_store:install " \
              '(ruby_llm_file_store:upgrade in an application that has ruby_llm\'s tables already), ' \
              'then bin/rails db:migrate'
      end

      # Whether the table and Active Storage's exist, asked of the database until
      # they do (a missing table is not remembered, so a migration run meanwhile is
      # seen).
      def self.table_ready?
        @table_ready ||= missing_storage_tables.empty? &&
                         connection_pool.with_connection { |connection| connection.table_exists?(table_name) }
      end

      # The tables of Active Storage's blobs and attachments that the database lacks.
      def self.missing_storage_tables
        [::ActiveStorage::Blob, ::ActiveStorage::Attachment].filter_map do |model|
          exists = model.connection_pool.with_connection { |connection| connection.table_exists?(model.table_name) }
          model.table_name unless exists
        end
      end

      private

      def purge_unused_blob
        blob = @blob_to_purge
        @blob_to_purge = @uploaded_blob = nil
        ChatFile.purge_if_unused(blob)
      end

      def purge_uploaded_blob
        blob = @uploaded_blob
        @blob_to_purge = @uploaded_blob = nil
        ChatFile.purge_if_unused(blob)
      end
    end
  end
end
