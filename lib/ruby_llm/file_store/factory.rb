# frozen_string_literal: true

module RubyLLM # :nodoc:
  class FileStore # :nodoc:
    # Builds stores and converters: <tt>RubyLLM.file_store.memory</tt>,
    # <tt>.directory(path)</tt>, <tt>.converter.text</tt>.
    module Factory
      module_function

      # A new FileStore::Memory.
      #
      #   RubyLLM.file_store.memory
      def memory(max_file_size: nil)
        Memory.new(max_file_size:)
      end

      # A FileStore::Directory on the folder at +path+, created when missing.
      #
      #   RubyLLM.file_store.directory("tmp/work")
      def directory(path, max_file_size: nil)
        Directory.new(path, max_file_size:)
      end

      # A RubyLLM::ActiveRecord::FileStore: the files of +chat+, a saved record, as rows
      # of ruby_llm_chat_files with their bytes in Active Storage. With +owner+ it writes
      # that owner's files and sees them and the chat's shared ones. Raises
      # RubyLLM::ConfigurationError when Active Record or Active Storage is not loaded.
      #
      #   RubyLLM.file_store.active_storage(chat)
      #   RubyLLM.file_store.active_storage(chat, owner: Current.user)
      def active_storage(chat, owner: nil, max_file_size: nil)
        FileStore.require_active_storage!('RubyLLM.file_store.active_storage')
        RubyLLM::ActiveRecord::FileStore.new(chat, owner:, max_file_size:)
      end

      # The built-in converters, to register in <tt>config.file_converters</tt>
      # (pdf, office and html are registered by default).
      #
      #   config.file_converters["application/x-subrip"] = RubyLLM.file_store.converter.text
      def converter
        ConverterFactory
      end

      # An embedder for the ranked search in words that calls RubyLLM.embed with
      # these options (see Embeddings), to set as <tt>config.file_store_embeddings</tt>.
      #
      #   config.file_store_embeddings = RubyLLM.file_store.embeddings(model: "text-embedding-3-small")
      def embeddings(model: nil, provider: nil, dimensions: nil, assume_model_exists: false)
        Embeddings::Model.new(model:, provider:, dimensions:, assume_model_exists:)
      end
    end

    # The converters RubyLLM.file_store.converter returns.
    module ConverterFactory
      module_function

      # Reads a file as it is.
      #
      #   config.file_converters["application/x-subrip"] = RubyLLM.file_store.converter.text
      def text
        Converters::Text
      end

      # Reads PDFs, scans and photos with RubyLLM.ocr; takes its options.
      #
      #   config.file_converters["image/*"] = RubyLLM.file_store.converter.ocr(model: "mistral-ocr-latest")
      def ocr(**options)
        Converters::OCR.new(**options)
      end

      # Reads the text of PDFs locally; nil for a scan, so OCR can follow it. On by
      # default.
      #
      #   config.file_converters["application/pdf"] = [converter.pdf, converter.ocr]
      def pdf
        Converters::PDF
      end

      # Reads .docx, .xlsx and .pptx files, OpenDocument and EPUB locally. On by default.
      #
      #   config.file_converters[RubyLLM::FileStore::Converters::Office::TYPES[0]] = RubyLLM.file_store.converter.office
      def office
        Converters::Office
      end

      # Reads HTML locally, without scripts, styles and hidden elements. On by default.
      #
      #   config.file_converters["text/html"] = RubyLLM.file_store.converter.html
      def html
        Converters::HTML
      end
    end
  end

  # Builds file stores and converters.
  #
  #   chat.with_file_store(RubyLLM.file_store.directory("tmp/work"))
  def self.file_store
    FileStore::Factory
  end
end
