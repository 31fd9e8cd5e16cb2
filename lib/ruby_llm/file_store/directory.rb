# frozen_string_literal: true

module RubyLLM
  class FileStore
    # Keeps files in a folder on disk. It never follows a symbolic link, refuses
    # paths that would leave the folder, leaves out hidden files and folders, writes
    # atomically, and detects content types from file names (or, when the name says
    # nothing, the first bytes). Its lock holds across processes too.
    #
    #   store = RubyLLM.file_store.directory("tmp/work")
    #   store.write("notes.md", "# Notes")
    #   store.local_root # => "/app/tmp/work"
    class Directory < FileStore
      CHUNK = 1024 * 1024
      private_constant :CHUNK

      # The folder, as an absolute path. Code execution runs here.
      attr_reader :local_root

      # Opens the folder at +path+, creating it when it is missing.
      def initialize(path, max_file_size: nil)
        super()
        self.max_file_size = max_file_size
        @local_root = File.expand_path(path.to_s)
        @native = Native::Directory.open(@local_root)
      end

      def list(prefix = nil) # :nodoc:
        native(prefix) { |folder| @native.list(folder) }.map { |entry| stored(entry) }
      end

      def list_first(limit, prefix = nil) # :nodoc:
        listing = native(prefix) { |folder| @native.list_first(folder, limit) }
        [listing[:entries].map { |entry| stored(entry) }, listing[:total]]
      end

      def [](path) # :nodoc:
        found = native(path) { |name| @native.stat(name) }
        found && ListedFile.found(@native, found)
      end

      def read(path) # :nodoc:
        native(path) { |name| @native.read(name) }
      end

      # Writes atomically: a reader sees the old file or the new one, never part. A
      # +content_type+ given is kept in the file's extended attribute
      # +user.ruby_llm.content_type+ where the file system has them (and returned
      # either way); otherwise the type comes from the name and the content.
      def write(path, content, content_type: nil)
        path = FileStore.path(path)
        content_type = content_type&.to_s
        entry = if content.is_a?(String)
                  again_if_folder_gone { @native.write(path, content, content_type:) }
                elsif content.respond_to?(:read)
                  write_stream(path, content, content_type)
                else
                  raise ArgumentError, "content for #{path} must be a String or an IO, not #{content.class}"
                end
        stored(entry)
      end

      def delete(path) # :nodoc:
        entry = native(path) { |name| @native.delete(name) }
        entry && stored(entry)
      end

      # Locks within this process and, through +flock+ on the folder itself, across
      # every process that shares the folder. No file in the folder takes part, so
      # nothing deleted or replaced there breaks it. The wait is a blocking +flock+ off
      # the GVL (under a Fiber scheduler, on a thread of its own while the fiber
      # waits), so the lock is handed over as soon as it is free, even from a process
      # that takes it back to back. Timeout.timeout, Thread#raise, Thread#kill and a
      # stopped fiber stop a wait for it, and at any point leave it free: the native
      # lock is made and given back with interrupts deferred, and the wait puts the
      # lock into it before any interrupt can land. A child forked inside the block
      # does not keep it once this process gives it back.
      def with_lock(&block)
        super do
          next block.call if @lock_pid == Process.pid

          Interrupts.deferred do |as_before|
            lock = Native::Lock.new
            begin
              as_before.call { @native.lock(lock) }
              @lock_pid = Process.pid
              as_before.call(&block)
            ensure
              @lock_pid = nil
              lock.release
            end
          end
        end
      end

      # The core reads the window and works out the version it read through from
      # the one descriptor, and gives both in one Hash.
      # The ranked search's index, in the folder's hidden .ruby_llm_index.
      def saved_passages(most) = @native.read_saved('passages', most) # :nodoc:
      def save_passages(bytes) = @native.save('passages', bytes) # :nodoc:

      def read_lines(path, offset:, limit:, max_chars:) # :nodoc:
        native(path) { |name| @native.read_lines(name, offset:, limit:, max_chars:) }
      end

      def read_chars(path, offset:, limit:) # :nodoc:
        native(path) { |name| @native.read_chars(name, offset:, limit:) }
      end

      def head(path, bytes) # :nodoc:
        native(path) { |name| @native.head(name, bytes) }
      end

      def search(entries, pattern, **options) # :nodoc:
        @native.search(entries, { pattern:, **options })
      end

      def inspect # :nodoc:
        "#<#{self.class.name} #{local_root}>"
      end

      private

      # Hands +path+ to the native store as it is: the core normalises it and
      # refuses what is no path, and a refusal is raised again here with the
      # message FileStore.path gives, which names the path as Ruby shows it.
      def native(path)
        yield path&.to_s
      rescue ArgumentError, TypeError
        FileStore.path(path)
        raise
      end

      # Runs the block, and once more if the folder the write goes into went meanwhile:
      # a delete removes the folder its last file leaves, and a write beside that
      # file, started as it went, found no folder for its temporary file. Nothing of
      # the content has been read when this is raised, and the write makes the folder.
      def again_if_folder_gone
        yield
      rescue FolderGoneError
        yield
      end

      # Writes what each read returns: an IO-like object may hand back its chunk
      # without filling the buffer it was given. The temporary file is made with
      # interrupts deferred and removed unless the write commits, whatever ends it (an
      # error, Timeout.timeout, Thread#raise, Thread#kill), so no interrupt falls
      # between the file made and the code that removes it (abort after a commit does
      # nothing).
      def write_stream(path, io, content_type)
        start = -> { again_if_folder_gone { @native.writer(path, content_type) } }
        Interrupts.holding(start, :abort.to_proc) do |writer|
          buffer = String.new(capacity: CHUNK, encoding: Encoding::BINARY)
          while (chunk = io.read(CHUNK, buffer))
            writer.write(chunk)
          end
          writer.commit
        end
      end

      def stored(entry)
        ListedFile.new(@native, entry)
      end

      # A file of a folder store, over the Native::Entry the native store gave. Its
      # time and digest are worked out when first asked for, so listing many files
      # builds little for each; a file a look-up found (ListedFile.found) knows its
      # path, size, type and time at once, so reading them asks the core nothing.
      class ListedFile < StoredFile # :nodoc:
        # rubocop:disable Lint/MissingSuper
        def initialize(native, entry, fields = nil)
          @native = native
          @entry = entry
          know(fields) if fields
        end
        # rubocop:enable Lint/MissingSuper

        # The file Native::Directory#stat described in +fields+, its Hash.
        def self.found(native, fields)
          new(native, fields[:entry], fields)
        end

        def path = @path ||= @entry.path
        def byte_size = @byte_size ||= @entry.size

        def content_type
          @content_type ||= @entry.content_type
        end

        def updated_at
          @updated_at ||= Time.at(*(@mtime || [@entry.mtime_sec, @entry.mtime_nsec]), :nsec)
        end

        # The digest of this version of the file; nil when the file has changed since.
        def digest
          return @digest if defined?(@digest)

          @digest = (@known ? @known_digest : @entry.digest) || @native.digest_of(@entry)
        end

        # The ctime, device and inode, and the digest of the first and last 64 KB
        # of this version of the file (see StoredFile#stamp); nil when the file has
        # changed since.
        def stamp
          return @stamp if defined?(@stamp)

          @stamp = @native.stamp_of(@entry)
        end

        private

        def know(fields)
          @path, @byte_size, @content_type, @mtime, @known_digest =
            fields.values_at(:path, :size, :content_type, :mtime, :digest)
          @known = true
        end
      end
    end
  end
end

require_relative 'directory_texts'
