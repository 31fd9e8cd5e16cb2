# frozen_string_literal: true

require 'fileutils'

module RubyLLM
  class FileStore
    class CodeRunner
      # Copy mode's two ends: the named files into the run folder, and what the run
      # wrote back into the store.
      class Copies # :nodoc:
        def initialize(store)
          @store = store
        end

        # Copies each name in +names+ (a file, or a folder's files) into +dir+ at the
        # same path. A name with neither raises ArgumentError, for the model.
        def copy_in(names, dir)
          names.map { |name| FileStore.path(name.to_s) }.uniq.each do |name|
            files = @store.exist?(name) ? [name] : @store.list(name).map(&:path)
            raise ArgumentError, "No file or folder at #{name} in this chat's files. Find names with list_files." if
              files.empty?

            files.each do |path|
              FileUtils.mkdir_p(File.dirname(File.join(dir, path)))
              File.binwrite(File.join(dir, path), @store.read(path))
            end
          end
        end

        # Saves the Outputs' kept files from +dir+ into the store and hands each
        # StoredFile to +on_write+. Returns [saved paths, notes on what was not saved].
        def save_back(dir, outputs, on_write)
          saved = []
          notes = []
          outputs.kept.each do |path|
            content = read_back(File.join(dir, path))
            # Written first: a safe-navigation call would skip its argument too.
            file = @store.write(path, content)
            on_write&.call(file)
            saved << path
          rescue ArgumentError, SystemCallError, FileStore::Error => e
            notes << "#{path} was not saved: #{e.message}"
          end
          unlisted = outputs.unlisted
          notes << "#{unlisted} more files the run wrote were not saved: at most #{Outputs::LISTED} a run." if
            unlisted.positive?
          [saved, notes]
        end

        private

        # The file at +path+, opened without following a link and measured before it
        # is read: nothing over the store's limit is ever read whole.
        def read_back(path)
          File.open(path, File::RDONLY | File::NOFOLLOW) do |file|
            stat = file.stat
            raise ArgumentError, 'not a regular file' unless stat.file?
            if stat.size > @store.max_file_size
              raise ArgumentError, "over this store's limit of #{@store.max_file_size} bytes a file"
            end

            file.binmode.read(@store.max_file_size + 1)
          end
        end
      end
    end
  end
end
