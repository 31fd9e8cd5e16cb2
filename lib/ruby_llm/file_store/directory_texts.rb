# frozen_string_literal: true

module RubyLLM
  class FileStore
    class Directory < FileStore # :nodoc:
      # What a folder store reads as text in its native core: the search over its
      # folder, converters and all, and the converted texts of the built-in
      # converters, cached there by file version for the whole process.
      module NativeTexts
        # Searches a folder (or all) in the native core without listing it to Ruby:
        # each file is typed there and read as it is or through the built-in
        # converters, whose texts the core caches by file version. Only files of a
        # type one of Ruby's own converters reads are converted here and handed over.
        # Returns the search as FileStore#search does, with +:files+, the number of
        # files there were.
        def search_tree(folder, pattern, config: nil, **options) # :nodoc:
          plan = Converters.plan(config)
          given = plan.any? { |_, names| names.include?('ruby') } ? ruby_converted(folder, plan, config) : []
          @native.search_tree(folder, pattern:, **options, plan:, given:)
        end

        # The text of the file at +path+ and the version it came from. A type only
        # the built-in converters read is converted in the native core, once per
        # version of the file for the whole process; other types as every store does.
        def text_and_version(path, config: nil, file: nil) # :nodoc:
          file ||= find(path)
          chain = Converters.native_chain(file.content_type, config:)
          return super unless chain

          converted = native_text(file, chain, config)
          return converted.values_at(:text, :version) if converted[:text]
          raise Converters::Builtin.unreadable(file.path, converted[:why]) if converted[:stopped]
          # A type that holds text is read as it is when its converters give nothing.
          return super if Converters::Text.readable_type?(file.content_type)

          [nil, converted[:version]]
        end

        # As text_and_version, with the text a KeptText: the core keeps the converted
        # text and reads a window of it for each read (ReadFile), so Ruby never holds
        # a large document's text (up to 64 MB) whole.
        def kept_text_and_version(path, config: nil, file: nil) # :nodoc:
          file ||= find(path)
          chain = Converters.native_chain(file.content_type, config:)
          return text_and_version(path, config:, file:) unless chain

          converted = native_text(file, chain, config, kept: true)
          return [KeptText.new(self, file.path, chain), converted[:version]] unless converted[:why]
          raise Converters::Builtin.unreadable(file.path, converted[:why]) if converted[:stopped]
          # Read as it is, as text_and_version reads it.
          return text_and_version(path, config:, file:) if Converters::Text.readable_type?(file.content_type)

          [nil, converted[:version]]
        end

        # A converted text the core keeps, read a window at a time. Each window is
        # read from the version of the file there is when it is asked, which it
        # names (+:version+), as Native.read_lines names the bytes it read.
        class KeptText
          def initialize(store, path, chain)
            @store = store
            @path = path
            @chain = chain
          end

          def read_lines(offset:, limit:, max_chars:)
            @store.kept_window(@path, @chain, 'lines', offset:, limit:, max_chars:)
          end

          def read_chars(offset:, limit:)
            @store.kept_window(@path, @chain, 'characters', offset:, limit:)
          end
        end

        # The window of the core's text of the file at +path+ (see KeptText), as
        # +{text:, trailer:, version:}+.
        def kept_window(path, chain, unit, **window) # :nodoc:
          converted = native(path) { |name| @native.converted_window(name, chain, unit:, **window) }
          # A file changed since its text was kept, into one that reads as none.
          raise Converters::Builtin.unreadable(path, converted[:why]) unless converted[:shown]

          converted[:shown].merge(version: converted[:version])
        end

        private

        # What the core's converters +chain+ read from +file+, in a convert event:
        # whether the core's cache had it is not told (+cached+ is nil), and its
        # refusal (a document past a ceiling) is the event's +error+. +kept+: the
        # text stays in the core (see KeptText); the answer says only how large it is.
        def native_text(file, chain, config, kept: false)
          Converters.instrument(self, file, config:) do |event|
            converted = native(file.path) do |name|
              kept ? @native.converted_window(name, chain) : @native.converted(name, chain)
            end
            event.merge!(cached: nil, converter: chain.join(', '))
            event.merge!(outcome: :refused, error: converted[:why]) if converted[:why]
            kept_figures(event, converted) if kept
            [converted[:text], converted]
          end.last
        end

        # What a text the core keeps (KeptText) adds to its convert event.
        def kept_figures(event, converted)
          return if converted[:why]

          event.merge!(bytes_out: converted[:bytes], lines: converted[:lines], outcome: :converted)
        end

        # +{path:, text:, why:}+ for each file inside +folder+ whose type a converter
        # of Ruby's reads: the text, or why there is none.
        def ruby_converted(folder, plan, config)
          native(folder) { |name| @native.caller_paths(name, plan) }.map do |path|
            text = text(path, config:)
            text ? { path:, text: text.b } : { path:, why: 'gave no text' }
          rescue ConverterError => e
            raise if e.loud?

            { path:, why: "could not be converted (#{e.reason})" }
          rescue StandardError => e
            { path:, why: "could not be converted (#{e.class.name}: #{e.message[0, 200]})" }
          end
        end
      end

      include NativeTexts
    end
  end
end
