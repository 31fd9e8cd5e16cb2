# frozen_string_literal: true

module RubyLLM
  class FileStore
    # Keeps files in memory, for as long as the store lives. The default store.
    #
    #   store = RubyLLM.file_store.memory
    #   store.write("notes.md", "# Notes")
    class Memory < FileStore
      CHUNK = 1024 * 1024
      private_constant :CHUNK

      def initialize(max_file_size: nil)
        super()
        self.max_file_size = max_file_size
        @files = {}
        @folders = Hash.new(0)
        @mutex = Mutex.new
      end

      def list(prefix = nil) # :nodoc:
        files = Interrupts.guarded(@mutex) { @files.values }.map(&:first)
        if prefix
          folder = "#{FileStore.path(prefix)}/"
          files = files.select { |file| file.path.start_with?(folder) }
        end
        files.sort_by!(&:path)
      end

      # Names the store and counts its files: never their content, which an event's
      # payload or a log line would otherwise carry.
      def inspect # :nodoc:
        "#<#{self.class.name} #{Interrupts.guarded(@mutex) { @files.size }} files>"
      end

      def [](path) # :nodoc:
        entry_at(path)&.first
      end

      def read(path) # :nodoc:
        entry = entry_at(path)
        raise FileNotFoundError, "No file at #{FileStore.path(path)}" unless entry

        entry.last.dup
      end

      def write(path, content, content_type: nil) # :nodoc:
        path = FileStore.path(path)
        bytes = binary(content, path).freeze
        file = StoredFile.new(path:, byte_size: bytes.bytesize,
                              content_type: content_type || Native.content_type(path, bytes.byteslice(0, 512)),
                              digest: Digest::SHA256.hexdigest(bytes), updated_at: Time.now)
        Interrupts.guarded(@mutex) do
          refuse_overlap(path)
          add_folders(path, 1) unless @files.key?(path)
          @files[path] = [file, bytes]
        end
        file
      end

      def delete(path) # :nodoc:
        path = FileStore.path(path)
        Interrupts.guarded(@mutex) do
          raise FileStore.folder_not_file(path) if @folders.key?(path)

          entry = @files.delete(path)
          add_folders(path, -1) if entry
          entry&.first
        end
      end

      private

      # The [StoredFile, bytes] at +path+, or nil. Every key was made by
      # FileStore.path, which gives a store path back as it is, so a String that is
      # a key already is looked up as it is, without asking the core to normalise
      # it (read_file's look-up and read are then no native calls); any other +path+
      # is normalised first, and raises as FileStore.path does.
      def entry_at(path)
        entry = Interrupts.guarded(@mutex) { @files[path] } if path.is_a?(String)
        entry || Interrupts.guarded(@mutex) { @files[FileStore.path(path)] }
      end

      def binary(content, path)
        return content.b if content.is_a?(String)
        raise ArgumentError, "content for #{path} must be a String or an IO, not #{content.class}" unless
          content.respond_to?(:read)

        buffer = String.new(encoding: Encoding::BINARY)
        while (chunk = content.read(CHUNK))
          buffer << chunk
        end
        buffer
      end

      def refuse_overlap(path)
        raise FileStore.folder_not_file(path) if @folders.key?(path)

        each_folder(path) do |folder|
          raise FileStore.file_not_folder(folder) if @files.key?(folder)
        end
      end

      def add_folders(path, change)
        each_folder(path) do |folder|
          count = @folders[folder] + change
          count.zero? ? @folders.delete(folder) : @folders[folder] = count
        end
      end

      def each_folder(path)
        parts = path.split('/')[0...-1]
        parts.each_index { |i| yield parts[0..i].join('/') }
      end
    end
  end
end
