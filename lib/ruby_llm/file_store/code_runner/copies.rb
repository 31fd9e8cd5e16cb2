# frozen_string_literal: true

require 'fileutils'
require 'tmpdir'

module RubyLLM
  class FileStore
    class CodeRunner
      # Copy mode's two ends: the named files into the run folder, and what the run
      # wrote back into the store.
      class Copies # :nodoc:
        # Yields a new, empty run folder and the path the app reaches its files by,
        # and removes it after, however deep the code made it. The folder is a tmpfs
        # of +bytes+ and at most +files+ files, folders and links, in namespaces
        # only its runs enter, reached through a descriptor (the plain folder on
        # disk where the kernel has no user namespaces). A failure to remove it
        # must not take the run's result with it, so it is only warned about.
        def self.run_folder(bytes, files)
          remove_left_by_the_dead
          dir, held = held_folder
          yield dir, Native.run_folder_tmpfs(dir, bytes:, inodes: files) || dir
        ensure
          begin
            Native.remove_run_folder(dir) if dir
          rescue FileStore::Error, SystemCallError => e
            warn "ruby_llm-file_store: could not remove the run folder #{dir}: #{e.message}"
          end
          held&.close
        end

        # A new run folder, open and locked (flock) until it is removed: the lock, not
        # the pid in its name, tells a sweep in any PID namespace that it is in use (an
        # app that is PID 1 of a container of its own sees none of another's pids).
        # One a sweep removed before the lock was taken is made again.
        def self.held_folder
          3.times do
            dir = Dir.mktmpdir('ruby_llm_run')
            held = lock(dir)
            return [dir, held] if held && File.identical?(dir, held)

            held&.close
          end
          raise SandboxError, "cannot make a run folder in #{Dir.tmpdir}: each was removed as it was made"
        end

        # Removes, once a process, the run folders an app killed mid-run left in
        # the temporary folder: those of ours whose lock no one holds, each removed
        # while this process holds it.
        def self.remove_left_by_the_dead
          return if @swept == Dir.tmpdir

          @swept = Dir.tmpdir
          Dir.glob(File.join(Dir.tmpdir, 'ruby_llm_run*-*-*')).each do |dir|
            next unless ours?(dir) && (held = lock(dir))

            Native.remove_run_folder(dir)
          rescue FileStore::Error, SystemCallError
            nil
          ensure
            held&.close
          end
        end

        def self.ours?(dir)
          stat = File.lstat(dir)
          stat.directory? && stat.uid == Process.uid
        rescue SystemCallError
          false
        end

        # The folder at +dir+, open and locked without waiting; nil when it is gone or
        # another open file holds its lock.
        def self.lock(dir)
          held = File.new(dir, File::RDONLY | File::NOFOLLOW)
          return held if held.flock(File::LOCK_EX | File::LOCK_NB)

          held.close
          nil
        rescue SystemCallError
          nil
        end

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
        # StoredFile to +on_write+, reading at most the Outputs' byte budget in all,
        # and none once the call's +deadline+ (a Deadline) has passed. Returns
        # [saved paths, notes on what was not saved].
        def save_back(dir, outputs, on_write, deadline: nil)
          saved = []
          notes = []
          left = outputs.budget
          outputs.kept.each_with_index do |path, i|
            break notes << out_of_time(outputs.kept.size - i, deadline) if deadline&.passed?

            left -= save_one(File.join(dir, path), path, left, outputs.budget, on_write)
            saved << path
          rescue ArgumentError, SystemCallError, FileStore::Error => e
            notes << "#{Shown.quote(path)} was not saved: #{e.message}"
          end
          unlisted = outputs.unlisted
          notes << "#{unlisted} more files the run wrote were not saved: at most #{Outputs::LISTED} a run." if
            unlisted.positive?
          [saved, notes]
        end

        private

        # Writes the file at +file+ to the store at +path+; returns the bytes read.
        def save_one(file, path, left, budget, on_write)
          content = read_back(file, left, budget)
          # Written first: a safe-navigation call would skip its argument too.
          stored = @store.write(path, content)
          on_write&.call(stored)
          content.bytesize
        end

        def out_of_time(count, deadline)
          "#{count} more files the run wrote were not saved: the run's #{deadline.seconds} s were up."
        end

        # The file at +path+, opened without following a link and measured before it
        # is read: nothing over the store's limit, or over the +left+ of the run's
        # budget, is ever read whole. The bytes read are what counts, whatever the
        # file's size says (a sparse file reads as all its zeros).
        def read_back(path, left, budget)
          File.open(path, File::RDONLY | File::NOFOLLOW) do |file|
            stat = file.stat
            raise ArgumentError, 'not a regular file' unless stat.file?

            max = @store.max_file_size
            raise ArgumentError, "over this store's limit of #{max} bytes a file" if stat.size > max
            raise ArgumentError, "past the #{budget} bytes a run may leave in all" if stat.size > left

            content = file.binmode.read([max, left].min + 1) || ''.b
            raise ArgumentError, "past the #{budget} bytes a run may leave in all" if content.bytesize > left

            content
          end
        end
      end
    end
  end
end
