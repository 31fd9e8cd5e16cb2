# frozen_string_literal: true

module RubyLLM
  class FileStore
    # Converted texts by file version, the least recently used dropped first. A
    # version is the path and the file's version as Reads knows it, so a changed
    # file is converted again.
    class TextCache # :nodoc:
      def initialize(capacity)
        @capacity = capacity
        @texts = {}
        @mutex = Mutex.new
      end

      def [](file)
        key = key_for(file)
        Interrupts.guarded(@mutex) do
          next unless @texts.key?(key)

          @texts[key] = @texts.delete(key)
        end
      end

      def []=(file, text)
        key = key_for(file)
        Interrupts.guarded(@mutex) do
          @texts.delete(key)
          @texts[key] = text
          @texts.shift while @texts.size > @capacity
        end
      end

      private

      def key_for(file)
        [file.path, Reads.version_of_file(file)]
      end
    end
  end
end
