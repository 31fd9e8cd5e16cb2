# frozen_string_literal: true

require 'set'

module RubyLLM
  class FileStore
    class CodeRunner
      # Sorts what a run wrote, from two snapshots, by one policy for both modes:
      # a name the store refuses is reported and left alone; a file over the store's
      # max_file_size (by the size the snapshot took, before anything is read) is not
      # kept; files past the run's byte budget (+budget+, all kept files together, in
      # path order) are not kept either, nor new files past +files+ (a count); the
      # rest are the run's files. Files the run left under a hidden name or a refused
      # one are never listed, but are held to the same limits, after the listed ones
      # and after those the folder already held under such names (so runs cannot
      # pile them up): past them they are removed in workspace mode (copy mode
      # saves none of them).
      # The new folders, links and other entries share +files+ with the new files:
      # past it they are removed in workspace mode. Every list is cut at LISTED
      # names, and after_file_write is called for the listed ones only.
      class Outputs # :nodoc:
        LISTED = 100

        attr_reader :created, :changed, :deleted, :refused, :oversized, :over_budget, :budget, :unseen_dropped,
                    :over_count, :entries_over

        # +after+ holds what the run left (Native.run's +after+: the new and changed
        # entries, and the files under hidden or refused names), +before+ what the
        # folder held at those paths before the run, +changes+ what changed.
        def initialize(store, before, after, budget:, changes:, files: nil)
          created, changed, @deleted, unnamed, hidden, entries =
            changes.values_at(:created, :changed, :deleted, :unnamed, :hidden, :entries)
          @max = store.max_file_size
          @budget = @left = budget
          @files = files
          @refused = unnamed
          @held = held_unseen(before, after, (@refused + hidden).to_set)
          created, hidden = drop_past_count(created, hidden, before)
          sort_listed(created, changed, after)
          @left -= @held.sum { |path| after.size(path).to_i }
          @unseen_dropped = unseen_past_limits((@refused + hidden).sort, after)
          @entries_over = entries_past_count(entries, before, after)
        end

        # The created and changed files to keep, at most LISTED of them.
        def kept
          (created + changed).first(LISTED)
        end

        # Workspace mode: removes the files over the limits, as copy mode does not
        # save them, and hands the listed ones to +on_write+.
        # Folders and other entries past the count go last, deepest first, each only
        # once it is empty. Each is moved aside (a rename) into a hidden folder that
        # a process of its own empties after (Native.empty_removing).
        def keep_in_place(store, on_write)
          (oversized + over_budget + over_count + unseen_dropped).each do |path|
            Native::Snapshot.remove(store.local_root, path)
          end
          Native::Snapshot.remove_entries(store.local_root, entries_over.reverse) if entries_over.any?
          kept.each { |path| (file = store[path]) && on_write&.call(file) }
        end

        # How many created or changed files are past the LISTED ones.
        def unlisted = created.size + changed.size - kept.size

        # Notes for the model on the names refused and the files not kept.
        def notes(removed:)
          fate = removed ? 'removed' : 'not saved'
          [note(refused, 'Names the chat\'s files cannot hold (control characters, line separators, a backslash, ' \
                         'not UTF-8, too long), left out: '),
           note(oversized, "Over this store's limit of #{@max} bytes a file, so #{fate}: "),
           note(over_budget, "Past the #{@budget} bytes a run may leave in all, so #{fate}: "),
           note(over_count, "Past the #{@files} new files a run may leave, so #{fate}: "),
           note(removed ? entries_over : [], "Past the #{@files} new files and folders a run may leave, so removed: "),
           note(removed ? unseen_dropped : [],
                "Under hidden or refused names, over this store's limit of #{@max} bytes a file or past the " \
                "#{@budget} bytes a run may leave, so removed: ")].compact
        end

        # '"a", "b", "c" and 5 more' for +paths+ cut at LISTED, each quoted (Shown.quote).
        def self.join(paths)
          shown = paths.first(LISTED).map { |path| Shown.quote(path) }.join(', ')
          paths.size > LISTED ? "#{shown} and #{paths.size - LISTED} more" : shown
        end

        private

        # The paths past what is left of the budget, taking each file's size in turn.
        def past_budget(paths, after)
          paths.reject do |path|
            size = after.size(path).to_i
            (@left -= size) >= 0 if size <= @left
          end
        end

        # Sets aside the new files past the first +@files+ (the listable ones first,
        # in path order, then hidden and refused ones) and returns +created+ and
        # +hidden+ without them.
        def drop_past_count(created, hidden, before)
          unseen = (@refused + hidden).sort.reject { |path| before.size(path) }
          listed = (created - @refused).sort
          @over_count = if @files
                          listed.drop(@files) + unseen.drop([@files - listed.size - @held.size, 0].max)
                        else
                          []
                        end
          @refused -= @over_count
          [created - @over_count, hidden - @over_count]
        end

        # The new folders, links and other entries past what the new files kept left
        # of +@files+, in path order (a folder before what is in it), those on the
        # way to a kept file counted first and never dropped: each one costs every
        # later walk of the folder (a run, a listing) as a file does.
        def entries_past_count(entries, before, after)
          return [] unless @files && entries.any?

          gone = (oversized + over_budget + over_count + unseen_dropped).to_set
          new_files = after.paths.reject { |path| before.size(path) || gone.include?(path) }
          needed = new_folders_above(new_files, entries.to_set)
          left = @files - new_files.size - needed.size
          entries.reject { |path| needed.include?(path) }.sort.drop([left, 0].max)
        end

        # The new folders on the way to +paths+, each made once: from each path up,
        # to the first folder that is not new or is already counted (every prefix
        # of every path, as strings, would cost the app the square of their depth).
        def new_folders_above(paths, fresh)
          paths.each_with_object(Set.new) do |path, needed|
            folder = File.dirname(path)
            folder = File.dirname(folder) while folder != '.' && fresh.include?(folder) && needed.add?(folder)
          end
        end

        # Sorts the listable files by max_file_size and the budget.
        def sort_listed(created, changed, after)
          @oversized = (created + changed - @refused).select { |path| after.size(path).to_i > @max }
          @over_budget = past_budget((created + changed - @refused - @oversized).sort, after)
          @created = created - @refused - @oversized - @over_budget
          @changed = changed - @refused - @oversized - @over_budget
        end

        # The files under hidden or refused names the folder held before the run
        # and still holds, untouched: no listing shows them, so they count against
        # save_files and save_bytes before this run's, or runs would pile them up.
        # Which names those are is the core's one rule (the snapshot's flags).
        def held_unseen(before, after, touched)
          after.paths.select do |path|
            before.size(path) && !touched.include?(path) && after.unseen?(path)
          end
        end

        # The hidden and refused files over max_file_size or past the budget the
        # listed files and the held ones left.
        def unseen_past_limits(paths, after)
          over = paths.select { |path| after.size(path).to_i > @max }
          over + past_budget(paths - over, after)
        end

        def note(paths, lead)
          "#{lead}#{Outputs.join(paths)}." if paths.any?
        end
      end
    end
  end
end
