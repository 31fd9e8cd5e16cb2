# frozen_string_literal: true

module RubyLLM
  class FileStore
    module Tools
      # What every tool shares: the store, the configuration its converters come
      # from, and turning every failure into a message for the model.
      class Base
        # A file the model should see as itself (an image, a PDF no converter reads),
        # with a line of text about it.
        FileResult = Struct.new(:text, :attachment)

        # Each tool declares itself with +tool+ (see Declaration).
        extend Declaration
        include Events

        attr_reader :store, :config, :chat

        # +on_write+ receives each StoredFile the tool writes; +code+, when given,
        # answers whether the model can run code (run_code) beside this tool.
        # +reads+ is the record of what the model read that this tool shares with
        # the other tools of its chat (ChatTools.for gives each chat one); without
        # it the tool uses the store's record for the current thread. +chat+, the
        # RubyLLM::Chat the tool serves, is named in the events it emits.
        #
        #   reads = RubyLLM::FileStore::Reads.new
        #   Tools::ReadFile.new(store, reads:).call(path: "plan.md")
        #   Tools::WriteFile.new(store, reads:).call(path: "plan.md", content: "v2")
        def initialize(store, config: nil, on_write: nil, code: nil, reads: nil, chat: nil)
          @store = store
          @chat = chat
          @config = config
          @on_write = on_write
          @code = code
          @reads = reads
        end

        # What the model read, as this tool's chat (or thread) saw it.
        def reads
          @reads || store.reads
        end

        # The most characters of an error message the model gets.
        MAX_ERROR_CHARS = 1000

        # Runs the tool with the model's arguments; a failure is returned as a
        # short message starting "Error:". No result passes the ceiling of
        # Native::MAX_RESULT_CHARS characters; a longer one is cut, with a note.
        # Each call is a <tt>tool.file_store.ruby_llm</tt> event.
        def call(**arguments)
          instrumented(arguments) { attempt(arguments) }
        end

        # Whether the model can run code, so a message may point it at run_code.
        def code?
          @code ? @code.call == true : false
        end

        private

        # [what the model gets, the error message or nil].
        def attempt(arguments)
          [capped(run(**arguments)), nil]
        rescue ConverterError => e
          failed(e.loud!.message)
        rescue ArgumentError, FileNotFoundError, FileStore::Error => e
          failed(e.message)
        rescue StandardError => e
          # Its first line: Ruby's error_highlight adds lines of source to some.
          failed("#{e.class.name}: #{e.message.lines.first.to_s.chomp}")
        end

        def failed(message)
          text = error(message)
          [text, text.delete_prefix('Error: ')]
        end

        def capped(result)
          case result
          when String then Native.cap_result(result)
          when FileResult then FileResult.new(Native.cap_result(result.text), result.attachment)
          else result
          end
        end

        def error(message)
          message = "#{message[0, MAX_ERROR_CHARS]}… (#{message.length} characters)" if
            message.length > MAX_ERROR_CHARS
          "Error: #{message}"
        end

        # +text+ as a message repeats it: inspected, and cut when long.
        def brief(text, max = 200)
          text.length > max ? "#{text[0, max].inspect}… (#{text.length} characters)" : text.inspect
        end

        # The store path of +path+, or nil for the whole store ("", ".", "/").
        def scope(path)
          path = path.to_s.strip
          return if path.empty? || %w[. ./ /].include?(path)

          FileStore.path(path)
        end

        def describe(file)
          "#{file.path} (#{file.content_type}, #{file.human_size})"
        end

        # The largest whole number a tool passes on: the core counts in 64 bits, so
        # an offset past it (2**64, 1e20) is read as this, past any file's end.
        MAX_INTEGER = (2**63) - 1

        def integer(value, name, minimum:)
          return if value.nil? || value == ''

          number = whole(value)
          raise ArgumentError, "#{name} must be a whole number of at least #{minimum}, not #{value.inspect}" unless
            number && number >= minimum

          [number, MAX_INTEGER].min
        end

        # +value+ as an Integer when it is a whole number, else nil. Integer() would
        # cut 1.5 to 1.
        def whole(value)
          return Integer(value, exception: false) unless value.is_a?(Float)

          value.to_i if value.finite? && value == value.to_i
        end

        def flag(value)
          [true, 'true', 1, '1', 'yes'].include?(value)
        end

        def refuse_large(path, bytesize, now: false)
          return if bytesize <= store.max_file_size

          refuse(path, :too_large, "#{path} #{now ? 'is' : 'would be'} #{human(bytesize)}, over this store's " \
                                   "limit of #{human(store.max_file_size)} a file. Write it as several smaller files.",
                 bytes: bytesize)
        end

        def human(bytes)
          StoredFile.new(path: 'x', byte_size: bytes, content_type: nil).human_size
        end

        def wrote(file)
          reads.remember(file)
          @on_write&.call(file)
          file
        end

        def check_read(file)
          refusal = reads.refusal(file)
          refuse(file.path, :unread, refusal) if refusal
        end
      end
    end
  end
end
