# frozen_string_literal: true

module RubyLLM
  class FileStore
    class CodeRunner
      # How a run ended, what it printed and which files it touched; +to_s+ is what
      # the model reads.
      class Result
        SIGNALS = { 9 => 'killed', 24 => 'its CPU time limit', 25 => 'its file size limit' }.freeze

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

        def to_s
          [ending, stream('stdout'), stream('stderr'), files, *notes].compact.join("\n")
        end

        private

        def ending
          time = format('%.2f s', seconds)
          return "Timed out after #{time}: every process of the run was killed." if timed_out?
          return "Ended by signal #{signal} (#{SIGNALS.fetch(signal, 'a signal')}) after #{time}." if signal

          "Exit code #{exit_code} in #{time}."
        end

        def stream(name)
          text = @outcome[name.to_sym]
          total = @outcome[:"#{name}_bytes"]
          return if total.zero?

          cut = total > text.bytesize ? "\n[#{name} cut: #{total} bytes in all, the first #{text.bytesize} shown]" : ''
          "#{name}:\n#{text.chomp}#{cut}"
        end

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
