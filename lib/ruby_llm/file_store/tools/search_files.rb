# frozen_string_literal: true

module RubyLLM
  class FileStore
    module Tools
      # search_files: grep over the text of every file that reads as text, in path
      # order, with linear-time regexes; or, given a question, the passages that
      # answer it best, ranked (FileStore#rank_passages).
      class SearchFiles < Base
        MAX_MATCHES = 200
        MAX_CONTEXT = 20
        # Passages a question shows.
        MAX_PASSAGES = 10

        tool 'search_files', offered: :by_default, order: 3
        description "Searches the text of this chat's files. With pattern, like grep: lines as path:line: text, " \
                    'for exact names, identifiers and regular expressions. With question, in your own words: ' \
                    'the passages that answer it best, ranked, as path:first-last: excerpt, for documents whose ' \
                    'wording you do not know. Give one of the two. PDFs and other formats are searched through ' \
                    'converters.'
        argument :pattern, type: 'string', required: false,
                           description: 'A regular expression (Rust syntax), or text with literal: true.'
        argument :question, type: 'string', required: false,
                            description: 'What you are looking for, in words, instead of a pattern.'
        argument :path, type: 'string', required: false, description: 'A folder or file to search. Leave out for all.'
        argument :literal, type: 'boolean', required: false, description: 'Match pattern as plain text.'
        argument :ignore_case, type: 'boolean', required: false, description: 'Ignore letter case.'
        argument :context, type: 'integer', required: false,
                           description: 'Lines to show before and after each match.'

        # Searches the files in +path+, or every file, for +pattern+, or ranks their
        # passages for +question+.
        def execute(pattern: nil, question: nil, path: nil, literal: nil, ignore_case: nil, context: nil)
          if RankedAnswer.question?(pattern, question)
            return RankedAnswer.new(store, config).answer(question.to_s, scope(path))
          end

          pattern = pattern.to_s
          raise ArgumentError, 'pattern is not valid UTF-8: search for text' unless utf8?(pattern)

          options = { literal: flag(literal), ignore_case: flag(ignore_case), max_matches: MAX_MATCHES,
                      context: [integer(context, 'context', minimum: 0) || 0, MAX_CONTEXT].min }
          folder = scope(path)
          answer(pattern, search_tree(folder, pattern, options) || search_listed(folder, pattern, options))
        end

        private

        def utf8?(pattern)
          pattern.dup.force_encoding(Encoding::UTF_8).valid_encoding?
        end

        # What the model reads of +found+ (a search with +:files+, how many files
        # there were): the lines found, or that none were, and the files that could
        # not be searched, with why.
        def answer(pattern, found)
          files, skipped = found.values_at(:files, :skipped)
          note = SearchNotes.note(found)
          unless found[:shown].zero? && found[:total].zero?
            return [found[:text].chomp, found[:summary], note && "[#{note}]"].compact.join("\n")
          end
          return "No matches for #{brief(pattern)}: there are no files to search." if files.zero?
          return "No matches for #{brief(pattern)} in #{count(files)}." unless note
          return "No matches for #{brief(pattern)}: no file had text to search. #{note}" if files == skipped

          "No matches for #{brief(pattern)} in #{count(files - skipped)}. #{note}"
        end

        # A folder store searches its folder in the native core, converters and all,
        # without listing it to Ruby first; nil when that does not apply.
        def search_tree(folder, pattern, options)
          return unless store.respond_to?(:search_tree) && !(folder && store[folder])

          found = store.search_tree(folder, pattern, **options, config:)
          raise FileNotFoundError, missing(folder) if folder && found[:files].zero? && store.list(folder).empty?

          found
        end

        # Other stores list the files, convert in Ruby what needs it, and search.
        def search_listed(folder, pattern, options)
          files = files_in(folder)
          entries, unread = entries_for(files)
          found = store.search(entries, pattern, **options)
          merge_skipped(found, unread).merge(files: files.size, **SearchNotes.partial(entries))
        end

        # The files left out before the search joined to those the search skipped,
        # named in path order.
        def merge_skipped(found, unread)
          return found if unread.empty?

          shown = (found[:skipped_shown] + unread).sort_by(&:first).first(Native::MAX_SKIPPED_SHOWN)
          found.merge(skipped: found[:skipped] + unread.size, skipped_shown: shown)
        end

        def missing(folder)
          "No file or folder at #{folder}. list_files shows the files there are."
        end

        def files_in(folder)
          return store.list unless folder

          file = store[folder]
          return [file] if file

          files = store.list(folder)
          raise FileNotFoundError, missing(folder) if files.empty?

          files
        end

        # The entries to search, and +[path, why]+ for each file left out.
        def entries_for(files)
          source = TextSource.new(store, config)
          source.prefetch(files)
          unread = []
          entries = files.filter_map do |file|
            bytes = searchable(source, file)
            next [file.path, bytes] unless bytes.is_a?(TextSource::Unread)

            unread << [file.path, bytes.why]
            nil
          end
          [entries, unread]
        end

        # A file whose converter fails is left out of the search rather than ending
        # it, with why; in development the converter's error ends it (ConverterError#loud?).
        def searchable(source, file)
          source.searchable(file)
        rescue UnreadableDocumentError => e
          TextSource::Unread.new(e.message.delete_prefix("#{file.path} ").delete_prefix("#{file.filename} "))
        rescue ConverterError => e
          raise if e.loud?

          TextSource::Unread.new("could not be converted (#{e.reason})")
        rescue WorkerError => e
          TextSource::Unread.new(e.loud!.message.delete_prefix("#{file.filename} "))
        rescue StandardError => e
          TextSource::Unread.new("could not be converted (#{e.class.name}: #{e.message[0, 200]})")
        end

        def count(files)
          files == 1 ? '1 file' : "#{files} files"
        end
      end
    end
  end
end
