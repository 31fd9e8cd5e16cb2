# frozen_string_literal: true

module RubyLLM
  class FileStore
    # Embeddings for the ranked search in words (FileStore#rank_passages, and
    # search_files given a question): where the app names an embedding model, each
    # passage is embedded once (a passage whose text is unchanged keeps its vector,
    # in this process and, through the saved index, in others), the question is
    # embedded as it is asked, and a passage's score combines its words' and its
    # meaning's, so a question asked in other words than its answer's finds it.
    #
    #   RubyLLM.configure do |config|
    #     config.file_store_embeddings = RubyLLM.file_store.embeddings(model: "text-embedding-3-small")
    #   end
    #
    # An embedder of the app's own is any object with +name+ (a String naming the
    # model; vectors of another name are dropped and made again) and +embed(texts)+
    # (an Array of vectors, one for each text, in order). Without one, the ranking is
    # by words alone.
    module Embeddings
      # The most passages of one file embedded; past them its passages rank by their
      # words alone, and the answer's note says so. With RubyLLM.embed that is at
      # most MAX_PASSAGES_PER_FILE / BATCH requests a file, once.
      MAX_PASSAGES_PER_FILE = 2_000
      # The texts one embed call is given.
      BATCH = 64
      # The errors that leave a file's passages ranked by their words until the next
      # question: the provider's, the network's, and vectors that do not fit.
      FAILURES = [RubyLLM::Error, ArgumentError, SystemCallError, IOError, EmbeddingError].freeze

      module_function

      # The embedder +config+ (a RubyLLM configuration, a context's, or nil for the
      # global one) names, or nil; a Model calls the provider with that configuration.
      def for(config)
        config = RubyLLM.config unless config.respond_to?(:file_store_embeddings)
        embedder = config.file_store_embeddings
        embedder.is_a?(Model) ? embedder.with_config(config) : embedder
      end

      # Embeds +unembedded+ (<tt>[position, text]</tt> pairs of the file at +path+, as
      # Native::PassageIndex#put names them) with +embedder+, BATCH texts a call, and
      # gives +index+ their vectors; a note when some are left to their words.
      def give(index, path, unembedded, embedder)
        left_out = 0
        unembedded.first(MAX_PASSAGES_PER_FILE).each_slice(BATCH) do |batch|
          left_out += index.set_vectors(path, batch.map(&:first).zip(embedder.embed(batch.map(&:last))))
          break if left_out.positive?
        end
        if left_out.positive?
          "not every passage is embedded (the index holds #{Native::MAX_VECTOR_BYTES} bytes of vectors); " \
            'the rest rank by their words'
        elsif unembedded.size > MAX_PASSAGES_PER_FILE
          "only its first #{MAX_PASSAGES_PER_FILE} passages are embedded; the rest rank by their words"
        end
      end

      # The errors of the HTTP client RubyLLM uses, as they are loaded.
      def failures
        defined?(::Faraday::Error) ? [*FAILURES, ::Faraday::Error] : FAILURES
      end

      # Embeds with RubyLLM.embed, the app's provider and model:
      # <tt>RubyLLM.file_store.embeddings(model: "text-embedding-3-small")</tt>.
      class Model
        # +model+, +provider+, +dimensions+ and +assume_model_exists+ as RubyLLM.embed
        # takes them; the model defaults to <tt>config.default_embedding_model</tt>.
        def initialize(model: nil, provider: nil, dimensions: nil, assume_model_exists: false)
          @options = { model:, provider:, dimensions:, assume_model_exists: }.compact
          @config = nil
        end

        # This embedder calling the provider with +config+ (a RubyLLM configuration,
        # such as a context's) rather than the global one.
        def with_config(config)
          dup.tap { |bound| bound.instance_variable_set(:@config, config) }
        end

        # The model, its provider and dimensions, which the index keeps its vectors by.
        def name
          model = @options[:model] || (@config || RubyLLM.config).default_embedding_model
          ['ruby_llm', @options[:provider], model, @options[:dimensions]].compact.join(':')
        end

        def embed(texts)
          vectors = (@config ? RubyLLM::Context.new(@config) : RubyLLM).embed(texts, **@options).vectors
          unless vectors.is_a?(Array) && vectors.size == texts.size && vectors.all?(Array)
            raise EmbeddingError, "#{name} gave #{Array(vectors).size} vectors for #{texts.size} texts"
          end

          vectors
        end
      end
    end
  end
end
