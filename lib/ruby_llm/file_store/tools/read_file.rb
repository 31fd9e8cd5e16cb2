# frozen_string_literal: true

module RubyLLM
  class FileStore
    module Tools
      # read_file: numbered lines (or characters) of a file's text, streamed, with a
      # trailer that says what was shown and where to read on.
      class ReadFile < Base
        DEFAULT_LINES = 2000
        DEFAULT_CHARACTERS = 20_000
        MAX_LINE_CHARACTERS = 2000
        # The most characters one read shows, leaving room for the trailer under
        # the ceiling of every tool result (the core's, which keeps it).
        MAX_CHARACTERS = Native::MAX_READ_CHARS
        UNITS = %w[lines characters].freeze

        tool 'read_file', offered: :by_default, order: 2, shown: :until_next_question
        description 'Reads a file of this chat as text: numbered lines from offset (1-based), at most limit lines ' \
                    "(default #{DEFAULT_LINES}), or characters with unit \"characters\". " \
                    'PDFs and other formats are read through converters; an image comes back as the file itself.'
        argument :path, type: 'string', description: 'The file, like "reports/q3.pdf".'
        argument :offset, type: 'integer', required: false,
                          description: 'Lines: the first line to show (1-based). Characters: how many to skip.'
        argument :limit, type: 'integer', required: false,
                         description: 'How many lines or characters to show at most.'
        argument :unit, type: 'string', required: false, description: '"lines" (the default) or "characters".'

        # Reads +path+ (see the description above): finds the file, reads it and
        # notes the version the read went through (so a change made meanwhile is not
        # taken for what the model saw). Frame#attempt cuts the result to the ceiling.
        def execute(path:, offset: nil, limit: nil, unit: nil)
          unit = unit_of(unit)
          file = find(path)
          result, version = read(file, unit, offset, limit)
          reads.remember(file, version)
          result
        end

        private

        def unit_of(unit)
          unit = unit.to_s.strip
          return 'lines' if unit.empty?
          return unit if UNITS.include?(unit)

          raise ArgumentError, "unit must be \"lines\" or \"characters\", not #{unit.inspect}"
        end

        def find(path)
          store.find(path)
        rescue FileNotFoundError
          raise FileNotFoundError, "No file at #{FileStore.path(path)}. list_files shows the files there are."
        end

        # [what the model reads, the version it came from] of +file+, by how its
        # text reads (TextSource#for); a file with no text to read has no version.
        def read(file, unit, offset, limit)
          kind, text, converted = TextSource.new(store, config).for(file, windows: true)
          case kind
          when :raw, :converted
            shown = unit == 'lines' ? lines(file, text, offset, limit) : characters(file, text, offset, limit)
            [joined(shown, unit), version_read(kind, text, converted, shown)]
          when :file
            FileResult.new("#{describe(file)} is attached as the file itself.", store.attachment(file.path, file:))
          else
            "#{describe(file)} has no text to read#{code? ? ': read it with run_code' : ''}."
          end
        end

        # The version the window came from: a converted text's, or the version a
        # window of a text the core keeps was read in (KeptText reads the file as it
        # is then), or the bytes'.
        def version_read(kind, text, converted, shown)
          return converted if kind == :converted && !text.respond_to?(:read_lines)

          shown[:version]
        end

        # The window of lines the core read (a Hash: +:text+, +:trailer+,
        # +:version+), from the converted +text+ or the file itself.
        def lines(file, text, offset, limit)
          offset = integer(offset, 'offset', minimum: 1) || 1
          limit = integer(limit, 'limit', minimum: 1) || DEFAULT_LINES
          return text.read_lines(offset:, limit:, max_chars: MAX_LINE_CHARACTERS) if text.respond_to?(:read_lines)
          return Native.read_lines(bytes_of(text), offset:, limit:, max_chars: MAX_LINE_CHARACTERS) if text

          store.read_lines(file.path, offset:, limit:, max_chars: MAX_LINE_CHARACTERS)
        end

        # +text+ as the core reads it, its bytes: a frozen text (every one the core
        # converted) as it is, since the core borrows a frozen String rather than
        # copy it, and a converted text may be 64 MB.
        def bytes_of(text)
          text.frozen? ? text : text.b
        end

        # The window of characters, as #lines gives lines. The core keeps a window
        # within MAX_CHARACTERS and writes its trailer.
        def characters(file, text, offset, limit)
          offset = integer(offset, 'offset', minimum: 0) || 0
          limit = integer(limit, 'limit', minimum: 1) || DEFAULT_CHARACTERS
          return text.read_chars(offset:, limit:) if text.respond_to?(:read_chars)
          return Native.read_chars(bytes_of(text), offset:, limit:) if text

          store.read_chars(file.path, offset:, limit:)
        end

        # The window and its trailer as the model reads them: lines without the
        # last line break, and no empty part.
        def joined(shown, unit)
          text, trailer = shown.values_at(:text, :trailer)
          return [text, trailer].compact.join("\n") unless unit == 'lines'

          [text.chomp, trailer].compact.reject(&:empty?).join("\n")
        end
      end
    end
  end
end
