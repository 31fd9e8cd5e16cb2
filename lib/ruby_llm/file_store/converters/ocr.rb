# frozen_string_literal: true

module RubyLLM
  class FileStore
    module Converters
      # Reads PDFs, scans and photos with RubyLLM.ocr, tables and all. Each file costs
      # one OCR request the first time it is read, so it runs only where registered:
      #
      #   config.file_converters["application/pdf"] = RubyLLM.file_store.converter.ocr(model: "mistral-ocr-latest")
      class OCR
        # The options RubyLLM.ocr takes, such as +model:+ and +provider:+.
        attr_reader :options

        def initialize(**options)
          @options = options
        end

        # The Markdown OCR reads from +attachment+.
        def call(attachment)
          unless RubyLLM.respond_to?(:ocr)
            raise ConfigurationError, "The OCR converter needs RubyLLM.ocr, which ruby_llm's main branch has: " \
                                      "ruby_llm #{RubyLLM::VERSION} has none"
          end

          RubyLLM.ocr(attachment, **options).markdown
        end
      end
    end
  end
end
