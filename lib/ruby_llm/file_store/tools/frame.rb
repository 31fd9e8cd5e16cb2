# frozen_string_literal: true

require 'timeout'

module RubyLLM
  class FileStore
    module Tools
      # What every tool does around its work: a failure becomes a short message
      # starting "Error:", a result is cut to the ceiling every result keeps, and the
      # model's arguments are read as it may send them (numbers as strings, flags as
      # "true"). Included in Base.
      module Frame # :nodoc:
        # A file the model should see as itself (an image, a PDF no converter reads),
        # with a line of text about it.
        FileResult = Struct.new(:text, :attachment)

        # The most characters of an error message the model gets.
        MAX_ERROR_CHARS = 1000

        # The largest whole number a tool passes on: the core counts in 64 bits, so
        # an offset past it (2**64, 1e20) is read as this, past any file's end.
        MAX_INTEGER = (2**63) - 1

        private

        # [what the model gets, the error message or nil] of the block's work: no
        # result passes the ceiling of Native::MAX_RESULT_CHARS characters, and
        # ruby_llm's refusal of arguments (a Hash of +:error+) counts as a failure.
        def attempt
          result = capped(yield)
          [result, result.is_a?(Hash) ? result[:error] : nil]
        rescue ConverterError, WorkerError => e
          failed(e.loud!.message)
        rescue ArgumentError, FileNotFoundError, FileStore::Error => e
          failed(e.message)
        rescue Timeout::Error => e
          # The caller's own Timeout.timeout: under a Fiber scheduler it is raised into
          # the fiber as itself, and must end the caller's block, not the tool's call.
          raise if e.instance_of?(Timeout::Error)

          failed("#{e.class.name}: #{e.message.lines.first.to_s.chomp}")
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
          when String then cap(result)
          when FileResult then FileResult.new(cap(result.text), result.attachment)
          else result
          end
        end

        # +text+ cut by the core to the ceiling. A text of at most as many
        # characters as the ceiling (Ruby counts them where the encoding is valid)
        # is one the core gives back whole, so it is not handed over to be copied
        # both ways: most results, read_file's always.
        def cap(text)
          return +text if text.length <= Native::MAX_RESULT_CHARS && (text.ascii_only? || utf8?(text))

          Native.cap_result(text)
        end

        def utf8?(text)
          text.encoding == Encoding::UTF_8 && text.valid_encoding?
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

        # +value+ as a whole number of at least +minimum+, nil when left out; raises
        # ArgumentError naming +name+ for anything else.
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
      end
    end
  end
end
