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

        # Saves each of +paths+ from +dir+ into the store and hands the StoredFile to
        # +on_write+. Returns [saved paths, notes on those that could not be saved].
        def save_back(dir, paths, on_write)
          saved = []
          notes = []
          paths.each do |path|
            content = File.binread(File.join(dir, path))
            if content.bytesize > @store.max_file_size
              notes << "#{path} was not saved: over this store's limit of #{@store.max_file_size} bytes a file."
              next
            end
            # Written first: a safe-navigation call would skip its argument too.
            file = @store.write(path, content)
            on_write&.call(file)
            saved << path
          rescue ArgumentError, SystemCallError, FileStore::Error => e
            notes << "#{path} was not saved: #{e.message}"
          end
          [saved, notes]
        end
      end
    end
  end
end
