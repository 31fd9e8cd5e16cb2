# frozen_string_literal: true

module RubyLLM
  class FileStore
    module Converters # :nodoc:
      module_function

      # Yields the bytes of +file+ in +store+ as an attachment, and their version.
      # A store that gives its bytes as a file on disk (Active Storage downloads a
      # blob to one, a chunk at a time) yields a StoredIO, which the built-in
      # converters send to their worker a piece at a time: the app never holds the
      # document whole.
      def stored(store, file)
        source = store.respond_to?(:with_stored_io) ? nil : store.read(file.path)
        return yield StoredBytes.new(source, filename: file.filename), Reads.version_of_bytes(source) if source

        store.with_stored_io(file) do |io|
          next yield StoredBytes.new(io, filename: file.filename), Reads.version_of_bytes(io) if io.is_a?(String)

          digest = Native.digest_of_io(io)
          yield StoredIO.new(io, filename: file.filename, digest:), (digest if io.size <= Reads::DIGEST_LIMIT)
        end
      end

      # A file as a converter gets it: a RubyLLM::Attachment whose +content+ is the
      # file's bytes as stored, on every ruby_llm. ruby_llm main's
      # Attachment#content makes a text type's bytes valid UTF-8, replacing what is
      # not, so a Latin-1 or Shift_JIS page (its charset in a <tt><meta></tt>) or a
      # UTF-16 one would reach its converter as mojibake, where the folder store's
      # core reads the file itself.
      class StoredBytes < RubyLLM::Attachment
        def initialize(bytes, filename:)
          # Before super, which may read the content to tell its type.
          @bytes = bytes.encoding == Encoding::BINARY ? bytes : bytes.b
          super(StringIO.new(@bytes), filename:)
        end

        # The bytes as stored, in binary.
        def content = @bytes
      end

      # A stored file's bytes in a file on disk, open as +io+, with their SHA-256
      # (+digest+): read whole only by a converter that asks for its content.
      class StoredIO < RubyLLM::Attachment
        attr_reader :io, :digest

        def initialize(io, filename:, digest:)
          @io = io
          @digest = digest
          super(io, filename:)
        end

        def content
          @io.rewind
          @io.read.b
        end
      end
    end
  end
end
