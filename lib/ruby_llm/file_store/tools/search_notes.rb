# frozen_string_literal: true

module RubyLLM
  class FileStore
    module Tools
      # The note under a search's answer: the files it could not search, and those it
      # searched only in part because their converted text was cut short.
      module SearchNotes # :nodoc:
        module_function

        # "2 files skipped: scan.png has no text converter; blob.bin is binary. 1 file
        # was searched only in part, ...", or nil when every file was searched whole.
        def note(found)
          notes = [skipped(found[:skipped], found[:skipped_shown]),
                   partial_note(found[:partial].to_i, found[:partial_shown].to_a)].compact
          notes.join(' ') unless notes.empty?
        end

        def skipped(count, shown)
          return if count.zero?

          reasons = shown.map { |path, why| "#{path} #{why}" }
          reasons << "and #{count - shown.size} more" if count > shown.size
          "#{files(count)} skipped: #{reasons.join('; ')}."
        end

        def partial_note(count, shown)
          return if count.zero?

          reasons = shown.map { |path, why| "#{path} (#{why})" }
          reasons << "and #{count - shown.size} more" if count > shown.size
          "#{count == 1 ? '1 file was' : "#{count} files were"} searched only as far as its text was read: " \
            "#{reasons.join('; ')}."
        end

        # +{partial:, partial_shown:}+ for the +[path, text]+ entries a search was given:
        # those whose converted text was cut short, with why.
        def partial(entries)
          cut = entries.filter_map do |path, bytes|
            why = bytes && Native.cut_reason(bytes)
            [path, why] if why
          end
          { partial: cut.size, partial_shown: cut.first(Native::MAX_SKIPPED_SHOWN) }
        end

        def files(count)
          count == 1 ? '1 file' : "#{count} files"
        end
      end
    end
  end
end
