# frozen_string_literal: true

module RubyLLM
  class FileStore
    # Chat#with_code_execution: the run_code tool over the chat's file store.
    module CodeExecution
      # Gives the model run_code over the chat's files, in a bubblewrap sandbox:
      # in the store's own folder when it has one, on copies of named files when not.
      # +python+ lists the packages the code may import, checked before the first
      # run; +ruby+ and +shell+ turn those languages on. Raises
      # RubyLLM::FileStore::SandboxError where bubblewrap cannot run, unless
      # +sandbox: false+. +mounts+ maps paths in the run folder to folders linked in
      # read-only. Needs a file store first. Returns +self+.
      #
      #   chat.with_file_store(RubyLLM.file_store.directory("tmp/work"))
      #       .with_code_execution(python: %w[pandas matplotlib])
      def with_code_execution(python: [], ruby: false, shell: false, sandbox: true,
                              timeout: CodeRunner::DEFAULT_TIMEOUT, mounts: {}, limits: {})
        raise ConfigurationError, 'with_code_execution needs a file store: call with_file_store first' unless
          file_store

        runner = CodeRunner.new(file_store, python:, ruby:, shell:, sandbox:, timeout:, mounts:, limits:,
                                            on_write: method(:file_written))
        runner.check_sandbox!
        @code_tool = Tools::RunCode.new(runner, config: @config, on_write: method(:file_written), chat: self)
        with_tools(@code_tool)
      end

      # The CodeRunner behind run_code, or nil.
      def code_runner
        @code_tool&.runner
      end
    end
  end
end

RubyLLM::Chat.prepend(RubyLLM::FileStore::CodeExecution)
