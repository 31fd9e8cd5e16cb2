# frozen_string_literal: true

require 'securerandom'

module RubyLLM
  class FileStore
    class CodeRunner
      # How a run ended, what it printed and which files it touched; +to_s+ is what
      # the model reads.
      class Result
        SIGNALS = { 9 => 'killed', 24 => 'its CPU time limit', 25 => 'its file size limit' }.freeze
        MARKER_LENGTH = 16
        # Characters a stream's fences and cut note take at most.
        FENCE_ROOM = 200

        attr_reader :exit_code, :signal, :stdout, :stderr, :seconds, :created, :changed, :deleted, :notes

        # The Result of a run from its Outputs: in copy mode (+saved+ given) only the
        # files saved back are listed, and +failed+ says why the others were not.
        def self.of(outcome, outputs, notes:, saved: nil, failed: [])
          listed = ->(paths) { saved ? paths & saved : paths }
          new(outcome, created: listed.call(outputs.created), changed: listed.call(outputs.changed),
                       deleted: outputs.deleted, notes: notes + outputs.notes(removed: saved.nil?) + failed,
                       copy: !saved.nil?)
        end

        def initialize(outcome, created:, changed:, deleted:, notes:, copy:)
          @outcome = outcome
          @exit_code, @signal, @stdout, @stderr, @seconds = outcome.values_at(:exit_code, :signal, :stdout, :stderr,
                                                                              :seconds)
          @created = created
          @changed = changed
          @deleted = deleted
          @notes = notes
          @copy = copy
        end

        # Whether the wall-clock timeout ended the run.
        def timed_out? = @outcome[:timed_out]

        # Whether the code exited with status 0.
        def success? = exit_code&.zero? || false

        # What the model reads: how the run ended, the files it created, changed or
        # deleted and the notes first, then its stdout and stderr, each between two
        # lines of a marker drawn at random after the run, which the code could not
        # print. Its control characters are shown escaped and its names quoted, so
        # nothing it prints or names passes for a line of the sandbox's. The output
        # is what is cut to keep the whole under the result ceiling, never the lists.
        def to_s
          head = [ending, files, *notes.map { |note| Shown.escape(note) }].compact.join("\n")
          [head, *streams(Native::MAX_RESULT_CHARS - Native::TRAILER_ROOM - head.length)].join("\n")
        end

        private

        def ending
          time = format('%.2f s', seconds)
          return "Timed out after #{time}: every process of the run was killed." if timed_out?
          return "Ended by signal #{signal} (#{SIGNALS.fetch(signal, 'a signal')}) after #{time}." if signal

          "Exit code #{exit_code} in #{time}."
        end

        # The streams that printed anything, fenced, sharing +room+ characters.
        def streams(room)
          shown = %w[stdout stderr].select { |name| @outcome[:"#{name}_bytes"].positive? }
                                   .to_h { |name| [name, Shown.escape(@outcome[name.to_sym]).chomp] }
          shares = shares(shown.values.map(&:length), room - (FENCE_ROOM * shown.size))
          shown.zip(shares).map { |(name, text), share| fenced(name, text, share) }
        end

        # +left+ characters split between texts of +lengths+: each whole where all
        # fit, else the shorter up to half and the longer the rest.
        def shares(lengths, left)
          left = [left, 0].max
          return lengths if lengths.sum <= left || lengths.empty?
          return [left] if lengths.size == 1

          short = [lengths.min, left / 2].min
          lengths[0] <= lengths[1] ? [short, left - short] : [left - short, short]
        end

        def fenced(name, text, room)
          total = @outcome[:"#{name}_bytes"]
          kept = @outcome[name.to_sym].bytesize
          cut = if text.length > room
                  "\n[#{name} cut: #{total} bytes in all, the first #{room} characters shown]"
                elsif total > kept
                  "\n[#{name} cut: #{total} bytes in all, the first #{kept} shown]"
                end
          "#{name}, between the two lines #{marker}:\n#{marker}\n#{text[0, room]}\n#{marker}#{cut}"
        end

        # A line the run's output cannot hold: drawn after the run.
        def marker = @marker ||= "---#{SecureRandom.hex(MARKER_LENGTH / 2)}---"

        def files
          lines = []
          lines << "Created: #{Outputs.join(created)}" if created.any?
          lines << "Changed: #{Outputs.join(changed)}" if changed.any?
          lines << deleted_line if deleted.any?
          lines.empty? ? nil : lines.join("\n")
        end

        def deleted_line
          return "Deleted: #{Outputs.join(deleted)}" unless @copy

          "Deleted in the run folder but kept in the chat's files: #{Outputs.join(deleted)}"
        end
      end
    end
  end
end
