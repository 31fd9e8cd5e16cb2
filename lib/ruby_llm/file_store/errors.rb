# frozen_string_literal: true

module RubyLLM # :nodoc:
  # Raised when a store has no file at the path asked for.
  #
  #   chat.file_store.read("missing.txt") # raises RubyLLM::FileNotFoundError, "No file at missing.txt"
  class FileNotFoundError < StandardError; end

  class FileStore # :nodoc:
    # Base class of the store's runtime failures.
    class Error < RubyLLM::Error; end

    # Raised when a path runs through a symbolic link, which a Directory store never
    # follows.
    class UnsafePathError < Error; end

    # Raised when an edit does not apply: old_text is missing, ambiguous, empty, or
    # the same as new_text. The message says which, for the model.
    class EditError < Error; end

    # Raised when code cannot run: bubblewrap is missing or cannot make a sandbox,
    # or the interpreter cannot start. The message says which.
    class SandboxError < Error; end

    # Raised when a chat's files cannot be locked: waiting would never end (two tasks
    # each holding files the other waits for), or took too long while other files
    # were held. Nothing was changed; the message says so, for the model.
    class LockError < Error; end

    # Raised when the disk refuses or fails an operation; the message names the path.
    class DiskError < Error; end

    # Raised when the folder a write goes into was deleted while the write ran (by
    # delete_folder, or a delete that removed the folder its last file left).
    class FolderGoneError < Error; end

    # Raised when a document stopped the worker converting it: it needed more memory
    # or CPU time than a conversion may have. The message names the file and says
    # which, for the model: "report.pdf could not be read: the document needs more
    # than 1 GB of memory to convert".
    class UnreadableDocumentError < Error; end

    # Raised when no convert worker could read a document for a reason that is not
    # the document's: the worker cannot run where the gem looked for it (the message
    # names the path and why), the system refused a process, a worker was killed
    # from outside twice in a row or did not answer within the wall-clock bound.
    # Nothing of it is kept against the document: the next read tries again (at
    # once, or after a backoff of a second or more when no worker could start).
    class WorkerError < Error
      # Logs the error at error level, then raises it where
      # FileStore.raise_converter_errors? (development and test in Rails), so the
      # tool call fails in front of the developer; else returns itself, for the
      # model's short message.
      def loud!
        RubyLLM.logger.error("ruby_llm-file_store: #{message}") if defined?(RubyLLM.logger)
        raise self if FileStore.raise_converter_errors?

        self
      end
    end

    # Raised by the store of a chat whose declared owner is missing, for each
    # write: the file would otherwise become a shared one. The message names the chat.
    class OwnerMissingError < Error; end

    # An embedder (Embeddings) gave what is not one vector for each text.
    class EmbeddingError < Error; end

    # Raised when a registered converter raised: the message, which the model
    # reads, names the file and the converter's type, never the converter's own
    # error, which is +original+ (and the event's and the log's).
    class ConverterError < Error
      # The exception the converter raised, the converter, and why in a few words.
      attr_reader :original, :converter, :reason

      def initialize(filename, type, original:, converter:)
        @original = original
        @converter = converter
        @reason = "its #{type} converter failed"
        super("#{filename} could not be converted: #{@reason}")
      end

      # Raises the converter's own error where FileStore.raise_converter_errors?
      # (development and test in Rails), so the tool call fails in front of the
      # developer; else returns itself, for the model's short message.
      def loud!
        raise original if loud?

        self
      end

      # Whether the converter's own error ends the tool call (FileStore.raise_converter_errors?):
      # a tool that would pass over the file (a search) raises this error on then, for
      # Frame#attempt to raise the converter's, as it does for every tool.
      def loud?
        FileStore.raise_converter_errors?
      end
    end

    # A path longer than a file system takes: over 4,096 bytes, or a part over 255.
    class PathTooLongError < ArgumentError; end

    # The ArgumentError a store raises when +path+, asked for as a file, is a folder:
    # every store words it the same, so the model reads one message whatever keeps
    # the files.
    #
    #   raise FileStore.folder_not_file(path) if folder?(path)
    def self.folder_not_file(path) # :nodoc:
      ArgumentError.new("#{path} is a folder, not a file")
    end

    # The ArgumentError a store raises when +path+, asked for as a folder, is a file.
    def self.file_not_folder(path) # :nodoc:
      ArgumentError.new("#{path} is a file, not a folder")
    end
  end
end
