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

        attr_reader :store, :config

        # +on_write+ receives each StoredFile the tool writes.
        def initialize(store, config: nil, on_write: nil)
          @store = store
          @config = config
          @on_write = on_write
        end

        # Runs the tool with the model's arguments; a failure is returned as a
        # message starting "Error:".
        def call(**arguments)
          run(**arguments)
        rescue ArgumentError, FileNotFoundError, FileStore::Error => e
          "Error: #{e.message}"
        rescue StandardError => e
          "Error: #{e.class.name}: #{e.message}"
        end

        private

        # The store path of +path+, or nil for the whole store ("", ".", "/").
        def scope(path)
          path = path.to_s.strip
          return if path.empty? || %w[. ./ /].include?(path)

          FileStore.path(path)
        end

        def describe(file)
          "#{file.path} (#{file.content_type}, #{file.human_size})"
        end

        def integer(value, name, minimum:)
          return if value.nil? || value == ''

          number = Integer(value, exception: false)
          raise ArgumentError, "#{name} must be a whole number of at least #{minimum}, not #{value.inspect}" unless
            number && number >= minimum

          number
        end

        def flag(value)
          [true, 'true', 1, '1', 'yes'].include?(value)
        end

        def refuse_large(path, bytesize)
          return if bytesize <= store.max_file_size

          raise ArgumentError, "#{path} would be #{human(bytesize)}, over this store's limit of " \
                               "#{human(store.max_file_size)} a file. Write it as several smaller files."
        end

        def human(bytes)
          StoredFile.new(path: 'x', byte_size: bytes, content_type: nil).human_size
        end

        def wrote(file)
          store.reads.remember(file)
          @on_write&.call(file)
          file
        end

        def check_read(file)
          refusal = store.reads.refusal(file)
          raise ArgumentError, refusal if refusal
        end
      end
    end
  end
end
