# frozen_string_literal: true

module RubyLLM
  class FileStore
    module Tools
      # run_code: runs the model's code on the chat's files through a CodeRunner.
      # Not one of the five file tools: a chat gets it from with_code_execution.
      #
      #   tool = RubyLLM::FileStore::Tools::RunCode.new(runner)
      #   tool.call(language: "python", code: "print(1)")
      class RunCode < Base
        tool 'run_code', offered: :with_code_execution
        # What the model reads about run_code, by whether the runner works in the
        # store's own folder (a workspace) or on copies of the files the code names.
        DESCRIPTIONS = {
          true => "It runs in the folder holding this chat's files: it reads them where they are, and what it " \
                  "writes there is in the chat's files at once.",
          false => 'It runs in an empty folder: name the files it reads in files (find them with list_files) and ' \
                   "they are copied in at the same paths. What it writes is saved to the chat's files."
        }.transform_values do |where|
          "Runs code in a sandbox with no network. #{where} Print what you need to see; the result lists the " \
            'files the run created or changed. Read a chart back with read_file.'
        end.freeze
        description DESCRIPTIONS[true]
        argument :language, type: 'string', description: "One of: #{CodeRunner::LANGUAGES.join(', ')}."
        argument :code, type: 'string', description: 'The program to run.'
        argument :files, type: 'array', required: false,
                         description: "Paths of the chat's files (or folders) the code reads, copied in before it runs."

        attr_reader :runner

        def initialize(runner, config: nil, on_write: nil, reads: nil, chat: nil)
          super(runner.store, config:, on_write:, reads:, chat:)
          @runner = runner
        end

        # What the model reads about run_code: where it runs depends on the runner.
        def description = DESCRIPTIONS[runner.workspace?]

        # Runs +code+ in +language+, with +files+ copied in first where the runner
        # works on copies.
        def execute(language:, code:, files: nil)
          raise ArgumentError, 'code is empty' if code.to_s.strip.empty?

          payload = event_payload(language: language.to_s, sandbox: runner.sandbox?, workspace: runner.workspace?,
                                  bytes_in: code.to_s.bytesize)
          Instrumentation.instrument(:run_code, payload, config:) do |event|
            runner.run(language:, code:, files: Array(files)).tap { |result| describe_run(event, result) }.to_s
          rescue StandardError => e
            event.merge!(outcome: :error, error: "#{e.class.name}: #{e.message}")
            raise
          end
        end

        private

        # How the run ended, for its event: never what it printed.
        def describe_run(event, result)
          outcome = if result.timed_out?
                      :timed_out
                    else
                      result.signal ? :signalled : :exited
                    end
          event.merge!(outcome:, exit_code: result.exit_code, signal: result.signal, seconds: result.seconds,
                       created: result.created.size, changed: result.changed.size, deleted: result.deleted.size,
                       bytes_out: result.stdout.to_s.bytesize + result.stderr.to_s.bytesize)
        end
      end
    end
  end
end
