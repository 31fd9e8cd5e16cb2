# frozen_string_literal: true

module RubyLLM
  # Every store's ranked search in words: FileStore#rank_passages, over Passages.
  class FileStore
    # A store's ranked search in words (Native::PassageIndex), kept in memory beside
    # the store object and built on first use from the text the model reads: a
    # file's own text, or its converter's. Where the store keeps one (a folder
    # store, in its hidden .ruby_llm_index; an Active Storage store, in a row of
    # its owner's at SAVED_PATH), the index saved by an earlier search, in this process or
    # another, is read back first, and saved again after a search that changed it.
    # Before each search every file's version is compared with the one it was
    # indexed at, changed files are indexed again and deleted ones removed, so no
    # passage of an old version is ever returned, whoever saved the index. The
    # store lists only its owner's files, so neither are another owner's.
    class Passages
      # The largest index saved or read back, in bytes; past it each process
      # builds its own.
      SAVED_BYTES = 64 << 20
      # Where a store that keeps its files in rows keeps the index: a path in the
      # gem's own folder, which no file may take.
      SAVED_PATH = '.ruby_llm_index/passages'

      def initialize(store)
        @store = store
        @native = nil
        @notes = {}
        @lock = StoreLock.new # held while files convert, so a wait can be stopped
        @guard = Mutex.new
      end

      # The +limit+ passages that answer +question+ best, best first, as Hashes
      # (:path, :first_line, :last_line, :text, :score). Where +config+ (or RubyLLM's)
      # names an embedder (Embeddings), by words and meaning.
      def rank(question, limit:, within: nil, config: nil)
        embedder = Embeddings.for(config)
        @lock.synchronize do
          @native ||= saved || Native::PassageIndex.new
          @native.embed_with(embedder&.name)
          save if refresh(config, embedder)
          @native.search(question.to_s, limit:, within:, vector: question_vector(embedder, question.to_s))
        end
      end

      # Why part of a file is not indexed (a bound reached), by path.
      def notes
        Interrupts.guarded(@guard) { @notes.dup }
      end

      private

      # Brings the index up to date with the store's files; whether it changed.
      def refresh(config, embedder)
        files = @store.list
        listed = files.to_h { |file| [file.path, file] }
        gone = @native.paths - listed.keys
        gone.each { |path| forget(path) }
        source = Tools::TextSource.new(@store, config)
        stale = files.reject { |file| @native.version(file.path) == key(Reads.version_of_file(file)) }
        stale.each { |file| index(source, file, embedder) }
        gone.any? || stale.any?
      end

      # With an embedder, the file stays indexed at no version until every passage
      # has its vector, so a question after a failure or an interrupt embeds what is
      # missing (a passage already embedded keeps its vector).
      def index(source, file, embedder)
        text, version, failure = text_of(source, file)
        note, unembedded = @native.put(file.path, text, version: embedder ? '' : key(version))
        embedded = embed(file.path, key(version), unembedded, embedder) if embedder
        note = [note, failure, embedded].compact.join('; ')
        Interrupts.guarded(@guard) { note.empty? ? @notes.delete(file.path) : @notes[file.path] = note }
      end

      # Gives the passages of the file at +path+ that have no vector theirs, then notes
      # the file as indexed at +version+; a note when some are left to their words.
      # A failure (the provider's error, the network's) leaves it at no version, and
      # says so.
      def embed(path, version, unembedded, embedder)
        note = Embeddings.give(@native, path, unembedded, embedder) unless unembedded.empty?
        @native.set_version(path, version)
        note
      rescue *Embeddings.failures => e
        why = e.message.lines.first.to_s.chomp[0, 200]
        "ranked by its words alone for now (embedding failed: #{why}); embedded on the next question"
      end

      # The question's vector, where an embedder is named and some passage has a
      # vector; nil otherwise, or when embedding it failed (logged): words alone then.
      def question_vector(embedder, question)
        return unless embedder && @native.embedded.positive?

        embedder.embed([question]).first
      rescue *Embeddings.failures => e
        RubyLLM.logger.warn("ruby_llm-file_store: the question was ranked by its words alone (#{e.message})")
        nil
      end

      # The index the store saved, or nil where it keeps none, or none it can read
      # back (damaged, of another version, past SAVED_BYTES): built again then.
      def saved
        bytes = @store.saved_passages(SAVED_BYTES)
        bytes && Native::PassageIndex.load(bytes)
      rescue ArgumentError, FileStore::Error => e
        RubyLLM.logger.warn("ruby_llm-file_store: the saved passage index is not used (#{e.message})")
        nil
      end

      # Saves the index where the store keeps it; a failure costs the next process
      # a build, never this search.
      def save
        bytes = @native.save
        @store.save_passages(bytes) if bytes.bytesize <= SAVED_BYTES
      rescue FileStore::Error, SystemCallError => e
        RubyLLM.logger.warn("ruby_llm-file_store: the passage index was not saved (#{e.message})")
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

    # The bytes of the ranked search's index this store saved (Passages), at most
    # +most+; nil for a store that keeps none (a memory store: its index lives in
    # the store object already).
    def saved_passages(_most) = nil # :nodoc:

    # Keeps the ranked search's index's +bytes+ where the store lives.
    def save_passages(_bytes) = nil # :nodoc:

    # The ranked search's index of this store (Passages).
    def passages # :nodoc:
      @passages || Interrupts.guarded(PASSAGES_LOCK) { @passages ||= Passages.new(self) }
    end

    PASSAGES_LOCK = Mutex.new
    private_constant :PASSAGES_LOCK
  end
end
