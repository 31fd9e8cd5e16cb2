# frozen_string_literal: true

module RubyLLM
  class FileStore
    module Tools
      # What search_files answers to a question: the passages of the store's files
      # that answer it best (FileStore#rank_passages), ranked, as
      # <tt>path:first-last: excerpt</tt> lines, with how to read around them.
      class RankedAnswer
        # True for a question, false for a pattern; raises ArgumentError unless
        # exactly one of them is given.
        def self.question?(pattern, question)
          given = { pattern:, question: }.reject { |_, value| value.to_s.empty? }
          return given.key?(:question) if given.size == 1

          raise ArgumentError, 'give pattern or question, not both' if given.size == 2
          raise ArgumentError, 'pattern is empty: say what to search for' unless pattern.nil?

          raise ArgumentError, 'give a pattern (exact text, a regex) or a question (in words)'
        end

        def initialize(store, config)
          @store = store
          @config = config
        end

        # The answer for +question+ over +folder+ (a folder or file path), or every file.
        def answer(question, folder)
          raise ArgumentError, 'question is not valid UTF-8: ask in text' unless
            question.dup.force_encoding(Encoding::UTF_8).valid_encoding?

          hits = ranked(question, folder)
          return none(question, folder) if hits.empty?

          lines = hits.map { |hit| "#{hit[:path]}:#{hit[:first_line]}-#{hit[:last_line]}: #{hit[:text]}" }
          [*lines, "These are the passages' first words, best first: read around one with read_file " \
                   '(offset: its first line).', notes].compact.join("\n")
        end

        private

        def ranked(question, folder)
          @store.rank_passages(question, limit: SearchFiles::MAX_PASSAGES, path: folder, config: @config)
        end

        def none(question, folder)
          if folder && !@store[folder] && @store.list(folder).empty?
            raise FileNotFoundError, "No file or folder at #{folder}. list_files shows the files there are."
          end

          "No passage matches the words of #{question.inspect[0, 200]}. Try other words, or a pattern."
        end

        # Files indexed only in part, for a bound reached.
        def notes
          notes = @store.passages.notes
          return if notes.empty?

          path, note = notes.min_by(&:first)
          more = notes.size > 1 ? " (and #{notes.size - 1} more files)" : ''
          "[Not every passage is ranked: #{path}: #{note}#{more}.]"
        end
      end
    end
  end
end
