# frozen_string_literal: true

module RubyLLM
  class FileStore
    module ChatTools
      # run_code as a RubyLLM::Tool over one CodeRunner.
      class RunCode < Base
        runs Tools::RunCode, 'run_code'

        def initialize(runner, config: nil, on_write: nil) # rubocop:disable Lint/MissingSuper
          @store = runner.store
          @runner = runner
          @tool = Tools::RunCode.new(runner, config:, on_write:)
        end

        # Says which of the two modes the chat's store gives.
        def description = Tools::RunCode.description(@runner)

        def execute(language:, code:, files: nil) = run(language:, code:, files:)
      end
    end
  end
end
