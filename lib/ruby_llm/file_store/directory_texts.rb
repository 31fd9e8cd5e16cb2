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

        private

        # What the core's converters +chain+ read from +file+, in a convert event:
        # whether the core's cache had it is not told (+cached+ is nil), and its
        # refusal (a document past a ceiling) is the event's +error+.
        def native_text(file, chain, config)
          Converters.instrument(self, file, config:) do |event|
            converted = native(file.path) { |name| @native.converted(name, chain) }
            event.merge!(cached: nil, converter: chain.join(', '))
            event.merge!(outcome: :refused, error: converted[:why]) if converted[:why] && !converted[:text]
            [converted[:text], converted]
          end.last
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
