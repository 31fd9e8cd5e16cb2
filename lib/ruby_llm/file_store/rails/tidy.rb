# frozen_string_literal: true

require 'tmpdir'

require_relative 'file_store'

module RubyLLM
  module ActiveRecord
    # Removes what a process killed outright (kill -9, the out-of-memory killer, a
    # container stopped) leaves of the Active Storage store's writes, which no
    # +ensure+ got to tidy: objects on the service with no blob row (an upload whose row
    # was never made), blob rows no attachment uses (a row made, its file's row not),
    # and the store's temporary files (an upload spooled to disk). Only what is older
    # than +older_than+ seconds goes, so a write under way is left alone.
    #
    #   RubyLLM::ActiveRecord::Tidy.run(older_than: 24 * 60 * 60)
    #   # => { blobs: 1, objects: 7, temporary_files: 0 }
    #
    # Blob rows nothing uses are any application's, not only the store's: an
    # application that attaches direct uploads later than +older_than+ after making
    # them should give a larger age. Disk and S3 services are listed; another service
    # has its blob rows tidied and its objects left.
    class Tidy
      # A day: longer than any write, and than Active Storage's direct uploads usually wait.
      DEFAULT_AGE = 24 * 60 * 60
      # A blob's key as Active Storage makes it (has_secure_token: 28 base-36 characters).
      KEY = /\A[0-9a-z]{28}\z/
      # The prefix of the store's temporary files (RailsStore::Upload).
      TEMPORARY = 'ruby_llm_chat_file'

      # Tidies +service+ (the blobs' service unless given); returns how many of each
      # kind it removed.
      def self.run(older_than: DEFAULT_AGE, service: ::ActiveStorage::Blob.service)
        new(older_than:, service:).run
      end

      def initialize(older_than:, service:)
        @cutoff = Time.now - older_than
        @service = service
      end

      def run
        { blobs: unused_blobs, objects: objects_without_row, temporary_files: }
      end

      private

      # Blob rows no attachment uses, each purged as the store purges one: only if
      # still unused, its object with it.
      def unused_blobs
        ::ActiveStorage::Blob.where.not(id: ::ActiveStorage::Attachment.select(:blob_id))
                             .where(created_at: ...@cutoff).find_each.count do |blob|
          ChatFile.purge_if_unused(blob)
          !::ActiveStorage::Blob.exists?(blob.id)
        end
      end

      # Objects named like a blob's key, older than the cutoff, that no blob row names.
      def objects_without_row
        old = stored_objects.select { |key, time| key.match?(KEY) && time < @cutoff }.map(&:first)
        old.each_slice(500).sum do |keys|
          orphans = keys - ::ActiveStorage::Blob.where(key: keys).pluck(:key)
          orphans.each { |key| @service.delete(key) }
          orphans.size
        end
      end

      # [key, time of change] of each object of the service.
      def stored_objects
        case @service.class.name
        when 'ActiveStorage::Service::DiskService'
          Dir[File.join(@service.root, '*', '*', '*')].select { |path| File.file?(path) }
                                                      .map { |path| [File.basename(path), File.mtime(path)] }
        when 'ActiveStorage::Service::S3Service'
          @service.bucket.objects.map { |object| [object.key, object.last_modified] }
        else []
        end
      end

      def temporary_files
        Dir[File.join(Dir.tmpdir, "#{TEMPORARY}*")].count do |path|
          File.file?(path) && File.mtime(path) < @cutoff && File.delete(path)
        rescue SystemCallError
          false
        end
      end
    end
  end
end
