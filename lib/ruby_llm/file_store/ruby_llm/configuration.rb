# frozen_string_literal: true

module RubyLLM
  class FileStore
    # <tt>config.file_converters</tt> as a RubyLLM configuration option: converters
    # by MIME type, for read_file, search_files and FileStore#text.
    #
    #   RubyLLM.configure do |config|
    #     config.file_converters["image/*"] = RubyLLM.file_store.converter.ocr
    #   end
    module ConverterConfiguration
      # The converters by MIME type (<tt>"application/pdf"</tt>, <tt>"image/*"</tt>,
      # <tt>"*/*"</tt>); a value is a converter or an Array of them.
      def file_converters
        @file_converters ||= {}
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

RubyLLM::Configuration.send(:option, :file_converters, -> { {} })
RubyLLM::Configuration.prepend(RubyLLM::FileStore::ConverterConfiguration)
