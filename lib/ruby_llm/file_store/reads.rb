# frozen_string_literal: true

module RubyLLM
  class FileStore
    # What one reader (a chat's tool set) has read, by path: the version of each file
    # it last saw. Tools change a file only when their reader read the version that
    # is there now, so a read in one chat never licenses a write in another, even
    # when both chats work on one store.
    #
    # A version is the file's digest, so a read followed by an edit never fails
    # when nothing changed, whatever the clock says. A file larger than
    # DIGEST_LIMIT is identified by its size, its time of change and the stamp its
    # store gives (StoredFile#stamp) instead, so that reading a few lines of a
    # large file does not read all of it: the time alone can be set back by a
    # program, or be the same for two writes where the clock counts whole seconds.
    class Reads
      # The largest file whose version is its digest: the core's rule, for every store.
      DIGEST_LIMIT = Native::DIGEST_LIMIT
      # The most paths a record keeps; past it the one read longest ago is forgotten
      # (the model then reads it again before changing it), so a long chat's record
      # stays small whatever it reads and whatever is deleted behind it.
      MAX_PATHS = 1_000

      # The records of a store's threads, for tools made without a record of their
      # own: each thread gets its own, and those of finished threads are dropped.
      class PerThread
        def initialize
          @records = {}.compare_by_identity
          @mutex = Mutex.new
          @prune_at = 16
        end

        # The record of the current thread.
        def current
          Interrupts.guarded(@mutex) do
            prune if @records.size >= @prune_at
            @records[Thread.current] ||= Reads.new
          end
        end

        private

        def prune
          @records.delete_if { |thread, _| !thread.alive? }
          @prune_at = [16, @records.size * 2].max
        end
      end

      def initialize
        @versions = {}
        @mutex = Mutex.new
      end

      # The version of +bytes+ a read showed, or nil for content past DIGEST_LIMIT,
      # which is known by the file's size and time instead: the core's answer
      # (Native.version_of_bytes), as its reads of bytes give it.
      def self.version_of_bytes(bytes)
        Native.version_of_bytes(bytes)
      end

      # A version of a file past DIGEST_LIMIT: its size and +stamp+ (see
      # StoredFile#stamp), or its size and time where the store gives no stamp; the
      # form the core gives a read's version in too (the binding's
      # <tt>convert::version</tt>), so the two compare. A stamp
      # changes whenever the time does (a folder's ctime with the mtime, a blob's
      # checksum with its bytes), and the time would not always agree with itself:
      # Rails 7.1 and later touch a row again after its attachment changes.
      def self.size_and_time(size, time, stamp = nil)
        [:size_and_time, size, stamp ? nil : time, stamp]
      end

      # The version of +file+ as the store describes it now. Its stamp, which a
      # folder store reads from the file, is asked only past DIGEST_LIMIT.
      def self.version_of_file(file)
        digest = file.digest if file.byte_size <= DIGEST_LIMIT
        digest || large_version(file)
      end

      # The version of +file+ as one past DIGEST_LIMIT: its size, time and stamp.
      def self.large_version(file)
        size_and_time(file.byte_size, file.updated_at, file.stamp)
      end

      # Notes that the model saw +file+ as it is, or, given the +version+ its read
      # went through, as that version.
      def remember(file, version = nil)
        version ||= Reads.version_of_file(file)
        Interrupts.guarded(@mutex) do
          # Moved to the end: the Hash's order is the order of reads.
          @versions.delete(file.path)
          @versions[file.path] = version
          @versions.shift while @versions.size > MAX_PATHS
        end
      end

      # How many paths the record keeps.
      def size
        Interrupts.guarded(@mutex) { @versions.size }
      end

      # Forgets +path+, as when the file is deleted.
      def forget(path)
        Interrupts.guarded(@mutex) { @versions.delete(path) }
      end

      # nil when the model may change +file+; otherwise why not, for the model.
      def refusal(file)
        seen = Interrupts.guarded(@mutex) { @versions[file.path] }
        return "#{file.path} exists and has not been read. Read it with read_file before changing it." unless seen
        return if seen == Reads.version_of_file(file)

        "#{file.path} changed since it was read. Read it again with read_file before changing it."
      end
    end
  end
end
