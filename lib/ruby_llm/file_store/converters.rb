# frozen_string_literal: true

module RubyLLM
  class FileStore # :nodoc:
    # Turns files into text for read_file, search_files and FileStore#text, through
    # the converters registered by MIME type (the built-in PDF, Office, OpenDocument,
    # EPUB and HTML ones unless changed), then the built-in text converter.
    module Converters
      # Types that hold text although they are not text/*: the core's list, by
      # which Text.readable_type? and the native search decide.
      TEXT_TYPES = Native.text_types.map(&:freeze).freeze

      module_function

      # The text of +attachment+, or nil when no converter reads it. Converters are
      # chosen by +content_type+, the type the store keeps, when given.
      def convert(attachment, config: nil, content_type: nil)
        type = content_type || attachment.mime_type
        candidates(registry(config), type).each do |converter|
          text = run(converter, attachment, type)
          return text if text
        end
        Text.call(attachment) if Text.readable?(attachment, type)
      end

      # What +converter+ reads from +attachment+. One that raises raises
      # ConverterError, whose message the model reads: it names the file, not the
      # converter's error (see ConverterError#loud!). A ConfigurationError (OCR on
      # a ruby_llm without RubyLLM.ocr) says what to configure, and passes as it is, as
      # does UnreadableDocumentError, a document that stopped its convert worker: no
      # converter failed, the document asked for more than a conversion may have;
      # and WorkerError, no worker to convert it.
      def run(converter, attachment, type)
        converter.call(attachment)
      rescue ConfigurationError, UnreadableDocumentError, WorkerError
        raise
      rescue StandardError => e
        raise ConverterError.new(attachment.filename, type, original: e, converter:)
      end

      # [the text of +file+ in +store+ as its converters read it, or nil; the
      # version it came from], kept in the store as that version's text.
      def convert_file(store, file, config:)
        Builtin.refuse_too_large(file) { candidates(registry(config), file.content_type) }
        stored(store, file) do |upload, version|
          text = in_queue(store) { convert(upload, config:, content_type: file.content_type) }
          store.cache_text(file, text) if text && (version.nil? || version == file.digest)
          [text, version || Reads.large_version(file)]
        end
      end

      # Runs the block with the built-in conversions it starts in +store+'s queue:
      # while every convert worker is busy, the next free one goes to the store with
      # the fewest conversions under way, so one chat's slow documents delay another
      # chat's by one conversion at most.
      def in_queue(store)
        before = Thread.current[:ruby_llm_file_store_queue]
        Thread.current[:ruby_llm_file_store_queue] = store.object_id
        yield
      ensure
        Thread.current[:ruby_llm_file_store_queue] = before
      end

      # The queue of the conversions the current fiber starts (0: the shared one).
      def queue
        Thread.current[:ruby_llm_file_store_queue] || 0
      end

      # Runs the block, which converts +file+ of +store+ and returns [text, version],
      # inside a <tt>convert.file_store.ruby_llm</tt> event; the block may add to
      # the payload it is given (+:cached+).
      def instrument(store, file, config: nil)
        payload = { store:, path: file.path, content_type: file.content_type, bytes_in: file.byte_size }
        Instrumentation.instrument(:convert, payload, config:) do |event|
          result = yield event
          converted(event, result.first)
          result
        rescue StandardError => e
          failed(event, e)
          raise
        end
      end

      # The event of a conversion that gave +text+ (nil for none).
      # A text the core keeps (Directory::KeptText) comes with its figures set.
      def converted(event, text)
        event[:bytes_out] ||= text.to_s.bytesize
        event[:lines] ||= text.to_s.count("\n")
        event[:outcome] ||= text ? :converted : :no_text
      end

      # The event of a conversion that raised +error+: the converter's own error, its
      # first line (Ruby's error_highlight adds lines of source to some).
      def failed(event, error)
        return event.merge!(outcome: :refused, error: error.message) if error.is_a?(UnreadableDocumentError)

        original = error.is_a?(ConverterError) ? error.original : error
        event.merge!(outcome: :failed, error: "#{original.class.name}: #{original.message.lines.first.to_s.chomp}")
        event[:converter] = error.converter.inspect if error.is_a?(ConverterError)
      end

      # The converters to try for +type+: exact matches, then the family
      # (<tt>image/*</tt>), then <tt>*/*</tt>, each an Array tried in order. The
      # order is the core's, which its search follows (+rules+, type_rules' answer,
      # given by a caller that already asked).
      def candidates(registry, type, rules = type_rules(type))
        rules[:converter_keys].flat_map { |key| Array(registry[key]) }.compact
      end

      # The converter registry of +config+, or the gem's own when none is given.
      def registry(config)
        config ||= RubyLLM.config
        return config.file_converters if config.respond_to?(:file_converters)

        FileStore.file_converters
      end

      # Whether a converter is registered for +type+ in +config+ (+rules+: see
      # candidates).
      def registered?(type, config: nil, rules: type_rules(type))
        candidates(registry(config), type, rules).any?
      end

      # The built-in converters every registry starts with: PDF, the Office,
      # OpenDocument and EPUB types, and HTML. OCR is not among them: it costs a
      # request per file.
      def defaults
        builtin = { 'application/pdf' => PDF, 'text/html' => HTML }
        Registry.of(builtin.merge(Office::TYPES.to_h { |type| [type, Office] }))
      end

      # The name the native core knows +converter+ by (one of Native::CONVERTERS,
      # which each built-in converter names as its +NAME+), or nil for a converter
      # only Ruby can run.
      def native_name(converter)
        converter::NAME if Builtin::CONVERTERS.include?(converter)
      end

      # The registry of +config+ as the native core takes it: each key with the
      # names of its converters, +"ruby"+ for one of Ruby's own.
      def plan(config)
        registry(config).map do |key, converters|
          [key.to_s, Array(converters).compact.map { |converter| native_name(converter) || 'ruby' }]
        end
      end

      # The names of the built-in converters for +type+, tried in order, when only
      # built-in ones are registered for it; nil when none is, or one of Ruby's is.
      # The core answers (Native.reading), by the plan its search follows.
      def native_chain(type, config: nil)
        reading = Native.reading(plan(config), type.to_s)
        reading if reading.is_a?(Array)
      end

      # The first bytes that tell a file of a type that says nothing from text.
      SNIFF_BYTES = 8192

      # Whether a file of +type+ and +size+ has no text, told without reading it all:
      # no converter takes its type, and the type is not text or, for a type that
      # says nothing, the first bytes (which it yields the number of, for the caller
      # to read) hold a NUL. So a 50 GB disk image is answered from its first 8 KB.
      def never_text?(type, size, config: nil, &head)
        return false if type.nil?

        rules = type_rules(type)
        return false if registered?(type, config:, rules:)

        !Text.text_file?(type, size, rules[:text], &head)
      end

      # +bytes+ as an attachment a converter or a model takes.
      def attachment(bytes, filename:)
        RubyLLM::Attachment.new(StringIO.new(bytes), filename:)
      end

      # Reads a file as it is: for types that hold plain text but do not say so.
      #
      #   config.file_converters["application/x-subrip"] = RubyLLM.file_store.converter.text
      module Text
        module_function

        def call(attachment)
          attachment.content.to_s.dup.force_encoding(Encoding::UTF_8).scrub
        end

        # Whether the built-in converter reads +attachment+: a text type, or a type
        # that says nothing and content without a NUL byte.
        def readable?(attachment, type = attachment.mime_type)
          # A file on disk is sniffed, not read whole: a 200 MB PDF is no text.
          if attachment.is_a?(StoredIO)
            return why_not_text(type, attachment.io.size) { |bytes| attachment.io.pread(bytes, 0) }.nil?
          end

          content = attachment.content.to_s
          why_not_text(type, content.bytesize) { content }.nil?
        end

        # Whether a file of +type+ and +size+ is text as it is: its type holds text,
        # or says nothing and the first SNIFF_BYTES (which it yields the number of,
        # for the caller to read) hold no NUL byte.
        def text_file?(type, size, kind = readable_type?(type), &)
          why_not_text(type, size, kind, &).nil?
        end

        # Why a file of +type+ and +size+ is no text as it is, in the words the
        # core's search uses (Native::NOT_TEXT): nil when its type holds text; when
        # the type says nothing, +"is binary"+ if the bytes it yields for (at most
        # the number given) hold a NUL; +"has no text converter"+ for any other
        # type. The one decision, by the core's rules (Native.type_rules and
        # Native.binary?), behind readable?, text_file? and a search's skips.
        # +kind+ is readable_type?'s answer, given by a caller that already has it.
        def why_not_text(type, size, kind = readable_type?(type))
          case kind
          when :text then nil
          when :unknown then Native::NOT_TEXT[:binary] if size.positive? && Native.binary?(yield(SNIFF_BYTES))
          else Native::NOT_TEXT[:no_converter]
          end
        end

        # :text for a type that holds text, :unknown for one that says nothing
        # (the bytes decide: text unless they hold a NUL), false otherwise. The
        # core decides, by the rule its search and converters follow.
        def readable_type?(type)
          Converters.type_rules(type)[:text]
        end
      end
    end

    class << self
      # Whether a converter that raises raises out of the tool call, rather than
      # giving the model a short error: true or false when set, and by default
      # true in Rails' development and test environments (<tt>Rails.env.local?</tt>).
      #
      #   RubyLLM::FileStore.raise_converter_errors = false
      attr_writer :raise_converter_errors

      def raise_converter_errors? # :nodoc:
        return @raise_converter_errors unless @raise_converter_errors.nil?
        return false unless defined?(::Rails) && ::Rails.respond_to?(:env)

        # What Rails.env.local? is on Rails 7.1 and later; asked of 6.1's StringInquirer,
        # which answers every question, local? is only whether the name is "local".
        %w[development test].include?(::Rails.env.to_s)
      end

      # The converters registered by MIME type when ruby_llm's configuration has no
      # +file_converters+ of its own; the built-in ones (Converters.defaults) until
      # changed.
      def file_converters
        @file_converters ||= Converters.defaults
      end

      # Replaces the registry: <tt>{}</tt> turns every built-in converter off.
      # Raises ArgumentError for a key that is no MIME type or family, or a
      # converter without call (see Converters::Registry).
      def file_converters=(converters)
        @file_converters = Converters::Registry.of(converters)
      end
    end
  end
end

require_relative 'converters/stored'
require_relative 'converters/type_rules'
require_relative 'converters/registry'
require_relative 'converters/ocr'
require_relative 'converters/builtin'
