# frozen_string_literal: true

module RubyLLM
  class FileStore
    module Tools
      # How a file reads as text: its own bytes, a converter's text, the file itself
      # for a model with vision, or not at all.
      class TextSource
        SEEN_AS_FILES = %w[image/ application/pdf].freeze

        # Why a file is left out of a search: a predicate, "has no text converter".
        Unread = Struct.new(:why)

        # A source serves one tool call: whether a converter of its configuration
        # reads a type is asked once and kept for the call (the core's rules for each
        # type are kept for the process, Converters.type_rules).
        def initialize(store, config)
          @store = store
          @config = config
          @registered = Hash.new do |known, type|
            known[type] = Converters.registered?(type, config: @config)
          end
        end

        # [:raw], [:converted, text, version of the file it came from], [:file] or
        # [:none] for +file+. +windows+: the caller reads the text only through
        # read_lines and read_chars (ReadFile), so a store whose core keeps the text
        # may give it there (a Directory::KeptText) rather than copy it whole.
        def for(file, windows: false)
          type = file.content_type.to_s
          if @registered[type]
            text, version = text_and_version(file, windows)
            return [:converted, text, version] if text
          elsif raw?(file, type)
            return [:raw]
          end
          seen_as_file?(file, type) ? [:file] : [:none]
        end

        # Reads at once the kept texts of those of +files+ a converter reads, where the
        # store can (the Active Storage store: a query a batch, not two a file), for
        # #searchable to use.
        def prefetch(files)
          return unless @store.respond_to?(:cached_texts)

          @prefetched = @store.cached_texts(files.select { |file| @registered[file.content_type.to_s] })
        end

        # The bytes search_files greps for +file+: nil to read the file itself, its
        # converted text, or Unread saying why it has none. The search skips a file
        # with a NUL byte on its own, so no file is opened here to check first.
        def searchable(file)
          type = file.content_type.to_s
          if @registered[type]
            text = @prefetched&.delete(file.path) || @store.text(file.path, config: @config)
            # The converters fall back on the file as it is where its type holds text.
            return text ? text.b : Unread.new('gave no text')
          end
          Converters.type_rules(type)[:text] ? nil : Unread.new(Native::NOT_TEXT[:no_converter])
        end

        # Why +file+ has no text to search, in the words search_files uses
        # (Native::NOT_TEXT), or nil when it has some: a type a converter reads has.
        # list_files' note; no converter runs for it.
        def why_not_text(file)
          type = file.content_type.to_s
          return if @registered[type]

          Converters::Text.why_not_text(type, file.byte_size, Converters.type_rules(type)[:text]) do |bytes|
            @store.head(file.path, bytes)
          end
        end

        private

        def text_and_version(file, windows)
          kept = windows && @store.respond_to?(:kept_text_and_version)
          return @store.kept_text_and_version(file.path, config: @config, file:) if kept

          @store.text_and_version(file.path, config: @config, file:)
        end

        def raw?(file, type)
          Converters::Text.text_file?(type, file.byte_size, Converters.type_rules(type)[:text]) do |bytes|
            @store.head(file.path, bytes)
          end
        end

        # A PDF or an image whose first bytes say it is one: a page of HTML named
        # report.pdf is not sent to the model's provider as a PDF.
        def seen_as_file?(file, type)
          return false unless SEEN_AS_FILES.any? { |prefix| type.start_with?(prefix) }

          head = @store.head(file.path, 1024).to_s.b
          return head.include?('%PDF-') if type == 'application/pdf'

          FileStore.content_type('image', head).start_with?('image/')
        end
      end
    end
  end
end
