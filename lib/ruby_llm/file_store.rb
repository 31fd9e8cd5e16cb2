# frozen_string_literal: true

require 'digest/sha2'
require 'stringio'

require 'ruby_llm'

require_relative 'file_store/version'
require_relative 'file_store/errors'
require_relative 'file_store/interrupts'
require_relative 'file_store/store_lock'
require_relative 'file_store/instrumentation'
require_relative 'stored_file'
require_relative 'file_store/extension'
require_relative 'file_store/text_cache'
require_relative 'file_store/reads'

module RubyLLM
  # A FileStore keeps a chat's files: what people attach, what tools return, long tool
  # results, and what code writes. The model works with it through tools that list,
  # read, search, write and edit its files, so a file reaches the model only when the
  # model asks for it.
  #
  #   store = RubyLLM.file_store.directory("tmp/work")
  #   store.write("notes/plan.md", "# Plan")
  #   store.list.map(&:path) # => ["notes/plan.md"]
  #
  # Write your own store by subclassing FileStore and implementing list, [], read,
  # write and delete. They are only ever passed paths FileStore.path accepts.
  class FileStore
    include Enumerable

    # Converted texts each store keeps in memory, by default.
    CACHED_TEXTS = 100

    # The largest file the model's tools write, by default: 25 MB.
    MAX_FILE_SIZE = 25 * 1024 * 1024

    # The largest file write_file and edit_file write to this store, in bytes.
    attr_writer :max_file_size

    # Returns +name+ as a path inside a store: relative, with forward slashes, and
    # with a leading <tt>./</tt> or <tt>/</tt> and repeated slashes removed.
    #
    #   RubyLLM::FileStore.path("./reports//q3.pdf") # => "reports/q3.pdf"
    #
    # Raises ArgumentError for an empty path, one with <tt>.</tt> or <tt>..</tt>
    # parts, or one with control characters or U+2028/U+2029; PathTooLongError (an ArgumentError) for
    # one over 4,096 bytes or with a part over 255.
    def self.path(name)
      Native.path(name.to_s) || raise(ArgumentError, "#{name.inspect} is not a path inside the chat's files")
    end

    def initialize
      @store_lock = StoreLock.new
      @text_cache = TextCache.new(CACHED_TEXTS)
      @reads = Reads::PerThread.new
      Converters::Builtin.prestart_in_process
    end

    # The largest file write_file and edit_file write to this store, in bytes.
    #
    #   store.max_file_size = 5 * 1024 * 1024
    def max_file_size
      @max_file_size || MAX_FILE_SIZE
    end

    # What the model has read from this store in the current thread, for tools made
    # without a record of their own (ChatTools.for gives each chat's tools one), so
    # they change only files it read as they are now. A read in one thread never
    # licenses a write in another.
    def reads = @reads.current

    # Returns the files inside the folder +prefix+, or every file, as StoredFile
    # objects sorted by path. A prefix is a folder: <tt>"rep"</tt> does not list
    # <tt>reports/q3.pdf</tt>.
    #
    #   store.list("reports")
    def list(prefix = nil)
      raise NotImplementedError, "#{self.class} must implement list"
    end

    # Returns the first +limit+ files of #list(+prefix+) and how many #list returns
    # in all, as <tt>[files, total]</tt>: what list_files shows. A store that can
    # count its files without making each one a StoredFile overrides it; the folder
    # store does, so listing 100,000 files holds +limit+ of them.
    #
    #   files, total = store.list_first(1000, "reports")
    def list_first(limit, prefix = nil)
      files = list(prefix)
      [files.first(limit), files.size]
    end

    # Returns the StoredFile at +path+, or nil when there is none.
    #
    #   store["notes/plan.md"] # => #<RubyLLM::StoredFile path: "notes/plan.md", ...>
    def [](path)
      raise NotImplementedError, "#{self.class} must implement []"
    end

    # Returns the StoredFile at +path+. Raises FileNotFoundError when there is none.
    #
    #   store.find("notes/plan.md")
    def find(path)
      self[path] || raise(FileNotFoundError, "No file at #{FileStore.path(path)}")
    end

    # Returns the content of the file at +path+ as a binary String. Raises
    # FileNotFoundError when there is none.
    #
    #   store.read("notes/plan.md") # => "# Plan"
    def read(path)
      raise NotImplementedError, "#{self.class} must implement read"
    end

    # Writes +content+, a String or an IO, to +path+, replacing any file there, and
    # returns its StoredFile. The content type is detected from the path and the
    # content unless given.
    #
    #   store.write("notes/plan.md", "# Plan")
    def write(path, content, content_type: nil)
      raise NotImplementedError, "#{self.class} must implement write"
    end

    # Deletes the file at +path+ and returns its StoredFile, or nil when there was
    # none. Raises ArgumentError when +path+ is a folder.
    #
    #   store.delete("notes/plan.md")
    def delete(path)
      raise NotImplementedError, "#{self.class} must implement delete"
    end

    # Deletes everything inside the folder +path+ and returns the deleted StoredFile
    # objects, sorted by path. Raises ArgumentError when +path+ is a file.
    #
    #   store.delete_folder("reports") # => [#<RubyLLM::StoredFile path: "reports/q3.pdf", ...>]
    def delete_folder(path)
      path = FileStore.path(path)
      raise FileStore.file_not_folder(path) if self[path]

      list(path).filter_map { |file| delete(file.path) }
    end

    # Yields each StoredFile, as list returns them.
    def each(&)
      return enum_for(:each) unless block_given?

      list.each(&)
    end

    # Returns whether there is a file at +path+; false for a path too long for any
    # file system to hold.
    def exist?(path)
      !self[path].nil?
    rescue PathTooLongError
      false
    end

    # Returns the text of the file at +path+: its content when it is text, or what a
    # converter makes of it. Returns nil when no converter can read the file. Each
    # version of a file is converted once. Raises FileNotFoundError when there is no
    # file at +path+.
    #
    #   store.text("notes/plan.md") # => "# Plan"
    def text(path, config: nil)
      text_and_version(path, config:).first
    end

    # The text of the file at +path+, as #text, and the version of the file it
    # came from (see Reads): the bytes converted are read once, and their text is
    # kept as the conversion of a version only when they are that version. +file+,
    # the StoredFile at +path+ when the caller has just found it, spares a look-up.
    def text_and_version(path, config: nil, file: nil) # :nodoc:
      file ||= find(path)
      if Converters.never_text?(file.content_type, file.byte_size, config:) { |bytes| head(file.path, bytes) }
        return [nil, Reads.version_of_file(file)]
      end

      Converters.instrument(self, file, config:) do |event|
        cached = cached_text(file)
        event[:cached] = !cached.nil?
        next [cached, Reads.version_of_file(file)] if cached

        Converters.convert_file(self, file, config:)
      end
    end

    # Returns the file at +path+ as an Attachment, to send it to a model. Raises
    # FileNotFoundError when there is none.
    #
    #   store.attachment("charts/revenue.png")
    def attachment(path, file: nil)
      file ||= find(path)
      Converters.attachment(read(file.path), filename: file.filename)
    end

    # Runs the block with the store locked and returns its value, so a tool that
    # reads a file and writes it back sees no other change in between. It is
    # reentrant. Stores lock within this process unless they override it.
    #
    #   store.with_lock { store.write("n.txt", store.read("n.txt") + "more") }
    def with_lock(&)
      @store_lock.synchronize(&)
    end

    # The store's class: never its files or their text (a store of your own may
    # say more, as the folder store names its folder).
    def inspect # :nodoc:
      "#<#{self.class.name}>"
    end

    # The text converted from this version of +file+, or nil when there is none yet.
    def cached_text(file)
      @text_cache[file]
    end

    # Keeps +text+ as the conversion of this version of +file+ and returns it.
    def cache_text(file, text)
      @text_cache[file] = text
    end

    # Lines of the file at +path+ as read_file shows them, in the one Hash the core
    # answers with: +:text+, +:trailer+ (nil when there is nothing to say) and
    # +:version+, the version of the file they came from as Reads keeps it, nil
    # when the bytes cannot tell it (past Reads::DIGEST_LIMIT). Stores that can
    # stream a file override it, so a read of a few lines does not load the whole
    # file.
    def read_lines(path, offset:, limit:, max_chars:) # :nodoc:
      Native.read_lines(read(path), offset:, limit:, max_chars:)
    end

    # Characters of the file at +path+ as read_file shows them, in a Hash as
    # #read_lines gives, streamed where the store can.
    def read_chars(path, offset:, limit:) # :nodoc:
      Native.read_chars(read(path), offset:, limit:)
    end

    # The first +bytes+ bytes of the file at +path+.
    def head(path, bytes) # :nodoc:
      read(path).byteslice(0, bytes)
    end

    # Greps +entries+, pairs of a path and its bytes; bytes of nil mean the store
    # reads the file itself. +options+ are +max_matches:+ and optionally
    # +literal:+, +ignore_case:+ and +context:+. Returns a Hash of +:text+,
    # +:shown+, +:total+ (matching lines), +:files_matched+, +:summary+ (when cut),
    # +:skipped+ and +:skipped_shown+ (+[path, why]+ pairs).
    def search(entries, pattern, **options) # :nodoc:
      entries = entries.map { |path, bytes| [path, bytes || read(path)] }
      Native.search(entries, { pattern:, **options })
    end
  end
end

require_relative 'file_store/converters'
require_relative 'file_store/memory'
require_relative 'file_store/directory'
require_relative 'file_store/factory'
require_relative 'file_store/rails'
require_relative 'file_store/code_runner'
require_relative 'file_store/chat/seams'
require_relative 'file_store/tools'
require_relative 'file_store/chat_tools'
require_relative 'file_store/chat'
require_relative 'file_store/embeddings'
require_relative 'file_store/passages'
