# frozen_string_literal: true

module RubyLLM
  # Every store's ranked search in words: FileStore#rank_passages, over Passages.
  class FileStore
    # A store's ranked search in words (Native::PassageIndex), kept in memory beside
    # the store object and built on first use from the text the model reads: a
    # file's own text, or its converter's. Before each search every file's version
    # is compared with the one it was indexed at, changed files are indexed again
    # and deleted ones removed, so no passage of an old version is ever returned.
    # The store lists only its owner's files, so neither are another owner's.
    class Passages
      def initialize(store)
        @store = store
        @native = Native::PassageIndex.new
        @notes = {}
        @lock = StoreLock.new # held while files convert, so a wait can be stopped
        @guard = Mutex.new
      end

      # The +limit+ passages that answer +question+ best, best first, as Hashes
      # (:path, :first_line, :last_line, :text, :score).
      def rank(question, limit:, within: nil, config: nil)
        @lock.synchronize do
          refresh(config)
          @native.search(question.to_s, limit:, within:)
        end
      end

      # Why part of a file is not indexed (a bound reached), by path.
      def notes
        Interrupts.guarded(@guard) { @notes.dup }
      end

      private

      def refresh(config)
        files = @store.list
        listed = files.to_h { |file| [file.path, file] }
        (@native.paths - listed.keys).each { |path| forget(path) }
        source = Tools::TextSource.new(@store, config)
        files.each do |file|
          next if @native.version(file.path) == key(Reads.version_of_file(file))

          text, version, failure = text_of(source, file)
          note = @native.put(file.path, text, version: key(version)) || failure
          Interrupts.guarded(@guard) { note ? @notes[file.path] = note : @notes.delete(file.path) }
        end
      end

      def forget(path)
        @native.remove(path)
        Interrupts.guarded(@guard) { @notes.delete(path) }
      end

      # The text the model reads of +file+ and the version it came from; empty for
      # a file with none (an image, a binary, a document no converter reads). When
      # the converter failed rather than the document (a worker stopped, by the OOM
      # killer say, or a converter of the app's raised), the text is empty for now and
      # the version nil, so the next question tries again, and a note says why.
      def text_of(source, file)
        kind, text, version = source.for(file)
        return [text.to_s, version] if kind == :converted
        return ['', Reads.version_of_file(file)] unless kind == :raw

        # The index gives a text with a NUL byte, a binary, no passages.
        bytes = @store.read(file.path)
        [bytes, Reads.version_of_bytes(bytes) || Reads.large_version(file)]
      rescue FileNotFoundError
        ['', nil]
      rescue ConverterError, WorkerError => e
        # In development a converter's error is raised, as search_files does.
        raise if e.is_a?(ConverterError) && e.loud?

        ['', nil, "not converted (#{e.message.lines.first.to_s.chomp[0, 200]}); tried again on the next question"]
      rescue UnreadableDocumentError
        ['', Reads.version_of_file(file)]
      end

      def key(version)
        version.is_a?(String) ? version : version.inspect
      end
    end

    # Returns the +limit+ passages of this store's files that answer +question+
    # best, ranked by BM25 over their words, as Hashes with :path, :first_line and
    # :last_line (1-based, inclusive), :text (the passage's start) and :score.
    # Converted documents are searched through their text. With +path+, only the
    # passages of the file at that path, or of the files under that folder, are
    # ranked. The index lives in this store object's memory: built on first use,
    # brought up to date before each search.
    #
    #   store.write("manual.md", "# Timeouts\n\nAbort any statement that takes too long.\n")
    #   store.rank_passages("give up on a long query").first[:path] # => "manual.md"
    #   store.rank_passages("give up on a long query", path: "notes") # => []
    def rank_passages(question, limit: 10, path: nil, config: nil)
      passages.rank(question, limit:, within: path && FileStore.path(path), config:)
    end

    # The ranked search's index of this store (Passages).
    def passages # :nodoc:
      @passages || Interrupts.guarded(PASSAGES_LOCK) { @passages ||= Passages.new(self) }
    end

    PASSAGES_LOCK = Mutex.new
    private_constant :PASSAGES_LOCK
  end
end
