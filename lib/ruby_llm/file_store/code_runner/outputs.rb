# frozen_string_literal: true

module RubyLLM
  class FileStore
    class CodeRunner
      # Sorts what a run wrote, from two snapshots, by one policy for both modes:
      # a name the store refuses is reported and left alone; a file over the store's
      # max_file_size (by the size the snapshot took, before anything is read) is not
      # kept; the rest are the run's files. Every list is cut at LISTED names, and
      # after_file_write is called for the listed ones only.
      class Outputs # :nodoc:
        LISTED = 100

        attr_reader :created, :changed, :deleted, :refused, :oversized

        def initialize(store, before, after)
          created, changed, @deleted, unnamed = before.changes(after)
          @max = store.max_file_size
          @refused = unnamed + (created + changed).reject { |path| storable?(path) }
          @oversized = (created + changed - @refused).select { |path| after.size(path).to_i > @max }
          @created = created - @refused - @oversized
          @changed = changed - @refused - @oversized
        end

        # The created and changed files to keep, at most LISTED of them.
        def kept
          (created + changed).first(LISTED)
        end

        # Workspace mode: removes the files over the limit, as copy mode does not save
        # them, and hands the listed ones to +on_write+.
        def keep_in_place(store, on_write)
          oversized.each { |path| store.delete(path) }
          kept.each { |path| (file = store[path]) && on_write&.call(file) }
        end

        # How many created or changed files are past the LISTED ones.
        def unlisted = created.size + changed.size - kept.size

        # Notes for the model on the names refused and the files not kept.
        def notes(removed:)
          fate = removed ? 'removed' : 'not saved'
          [note(refused, 'Names the chat\'s files cannot hold (control characters, a backslash, not UTF-8), ' \
                         'left out: '),
           note(oversized, "Over this store's limit of #{@max} bytes a file, so #{fate}: ")].compact
        end

        # "a, b, c and 5 more" for +paths+ cut at LISTED.
        def self.join(paths)
          shown = paths.first(LISTED).join(', ')
          paths.size > LISTED ? "#{shown} and #{paths.size - LISTED} more" : shown
        end

        private

        def note(paths, lead)
          "#{lead}#{Outputs.join(paths.map(&:inspect))}." if paths.any?
        end

        def storable?(path)
          FileStore.path(path) == path && !path.match?(/[\\[:cntrl:]]/)
        rescue ArgumentError
          false
        end
      end
    end
  end
end
