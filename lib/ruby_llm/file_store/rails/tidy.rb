# frozen_string_literal: true

require 'tmpdir'

require_relative 'file_store'

module RubyLLM
  module ActiveRecord
    # Removes what a process killed outright (kill -9, the out-of-memory killer, a
    # container stopped) leaves of the Active Storage store's writes, which no
    # +ensure+ got to tidy: blob rows the store made (each upload's row is made and
    # committed before its bytes are sent, marked in its metadata) that no attachment
    # uses, each with its object; and the store's temporary files (an upload spooled to
    # disk) whose process is gone. Only what is older than +older_than+ seconds goes,
    # so a write under way is left alone.
    #
    #   RubyLLM::ActiveRecord::Tidy.run(older_than: 24 * 60 * 60)
    #   # => { blobs: 1, temporary_files: 0 }
    #
    # It never lists the service: a Disk root or a bucket another application also
    # uses keeps that application's objects, and a blob row or a temporary file this
    # store did not make is left, attached or not.
    class Tidy
      # A day: longer than any write.
      DEFAULT_AGE = 24 * 60 * 60
      # A temporary file of the store's, as Tempfile names it: the prefix, the date,
      # the id of the process that made it, a random part.
      TEMPORARY = /\A#{RubyLLM::FileStore::RailsStore::Upload::SPOOL}\d{8}-(\d+)-[0-9a-z]+\z/

      # Tidies the blobs of every service; returns how many of each kind it removed.
      def self.run(older_than: DEFAULT_AGE)
        new(older_than:).run
      end

      def initialize(older_than:)
        @cutoff = Time.now - older_than
      end

      def run
        { blobs: unused_blobs, temporary_files: }
      end

      private

      # The store's blob rows no attachment uses, each purged as the store purges one:
      # only if still unused, its object with it.
      def unused_blobs
        own_blobs.where.not(id: ::ActiveStorage::Attachment.select(:blob_id))
                 .where(created_at: ...@cutoff).find_each.count do |blob|
          ChatFile.purge_if_unused(blob)
          !::ActiveStorage::Blob.exists?(blob.id)
        end
      end

      # Rows whose metadata (JSON) holds the store's mark. In SQL: Arel would pass the
      # pattern through the column's JSON coder.
      def own_blobs
        blobs = ::ActiveStorage::Blob
        column = blobs.connection_pool.with_connection do |connection|
          "#{blobs.quoted_table_name}.#{connection.quote_column_name('metadata')}"
        end
        blobs.where("#{column} LIKE ?", %(%"#{RubyLLM::FileStore::RailsStore::Upload::OWN}":true%))
      end

      # The store's spooled uploads in Dir.tmpdir, of this user, whose process has
      # ended (a process that lives, this one or another, may still read its own).
      def temporary_files
        Dir.children(Dir.tmpdir).count do |name|
          path = File.join(Dir.tmpdir, name)
          stale_spool?(name, path) && File.delete(path).positive?
        rescue SystemCallError
          false
        end
      end

      def stale_spool?(name, path)
        pid = name[TEMPORARY, 1]
        return false if pid.nil? || alive?(pid.to_i)

        stat = File.lstat(path)
        stat.file? && stat.owned? && stat.mtime < @cutoff
      end

      def alive?(pid)
        Process.kill(0, pid)
        true
      rescue Errno::ESRCH
        false
      rescue Errno::EPERM
        true # another user's
      end
    end
  end
end
