# frozen_string_literal: true

module RubyLLM
  class FileStore
    # <tt>config.file_converters</tt> as a RubyLLM configuration option: converters
    # by MIME type, for read_file, search_files and FileStore#text. It starts with
    # the built-in ones (Converters.defaults); any can be replaced or removed.
    #
    #   RubyLLM.configure do |config|
    #     config.file_converters["image/*"] = RubyLLM.file_store.converter.ocr
    #     config.file_converters.delete("text/html")
    #   end
    module ConverterConfiguration
      # The converters by MIME type (<tt>"application/pdf"</tt>, <tt>"image/*"</tt>,
      # <tt>"*/*"</tt>); a value is a converter or an Array of them.
      def file_converters
        @file_converters ||= Converters.defaults
      end

      # Replaces the registry, checked as Converters::Registry checks each converter
      # registered; nil puts the built-in ones back.
      def file_converters=(converters)
        super(converters && Converters::Registry.of(converters))
      end

      # A copy, such as a context's, gets its own Hash, so registering a converter
      # there leaves the original alone.
      def initialize_copy(source)
        super
        @file_converters = source.file_converters.dup
      end
    end
  end
end

RubyLLM::Configuration.send(:option, :file_converters, -> { RubyLLM::FileStore::Converters.defaults })
RubyLLM::Configuration.prepend(RubyLLM::FileStore::ConverterConfiguration)
# The embedder of the ranked search in words (FileStore::Embeddings); nil: words alone.
RubyLLM::Configuration.send(:option, :file_store_embeddings, nil)
