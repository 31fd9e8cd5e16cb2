# frozen_string_literal: true

require 'English'
require 'tmpdir'

module RubyLLM
  class FileStore
    # Runs the model's code on a store's files, in a sandbox. Two modes follow from
    # the store, with nothing to configure:
    #
    # - workspace mode, for a store with a +local_root+ folder: the code runs in the
    #   folder itself, and a snapshot before and after tells which files it
    #   created, changed (by content, for the files whose times moved) or deleted;
    # - copy mode, for every other store: the code runs in an empty temporary folder
    #   (a tmpfs of +folder_bytes+ holding at most +folder_files+ names, whoever
    #   the app runs as) holding copies of the +files+ named, and what it writes or
    #   changes is saved back to the store. A file it deletes stays in the store.
    #
    #   runner = RubyLLM::FileStore::CodeRunner.new(store, python: %w[pandas], timeout: 30)
    #   runner.run(language: "python", code: "print(1)").to_s # => "Exit code 0 in 0.09 s..."
    class CodeRunner
      LANGUAGES = %w[python ruby shell].freeze

      # The limits the native runner takes, whose defaults are the core's
      # (Native::RUN_LIMITS, from +crates/sandbox/src/limits.rs+); +digest_bytes+ follows
      # +save_bytes+ and the timeout is an argument of its own.
      NATIVE_LIMITS = (Native::RUN_LIMITS.keys - %i[timeout digest_bytes]).freeze
      # Limits of each run, overridable with +limits:+: the core's, and the three that
      # are the Ruby side's (the bytes a run may save back, and copy mode's folder).
      DEFAULT_LIMITS = Native::RUN_LIMITS.slice(*NATIVE_LIMITS).merge(
        save_bytes: 256 << 20, folder_bytes: 1 << 30, folder_files: 100_000
      ).freeze
      # Seconds a run_code call may take, copying in and saving back included: the core's.
      DEFAULT_TIMEOUT = Native::RUN_LIMITS[:timeout]

      attr_reader :store, :languages, :timeout, :mounts, :packages

      # +python+, +ruby+ and +shell+ turn each language on (a list of Python packages
      # the code expects counts as on); +sandbox: false+ runs without bubblewrap,
      # with the limits and the timeout but without isolation. +mounts+ maps a path
      # in the run folder to a folder on disk linked in read-only for each run.
      # +on_write+ receives each StoredFile a run created or changed.
      def initialize(store, python: [], ruby: false, shell: false, sandbox: true, timeout: DEFAULT_TIMEOUT, mounts: {},
                     limits: {}, on_write: nil)
        @store = store
        @languages = { 'python' => python, 'ruby' => ruby, 'shell' => shell }.select { |_, on| on }.keys
        raise ArgumentError, 'code execution needs at least one of python, ruby or shell' if @languages.empty?

        @packages = python.is_a?(Array) ? python.map(&:to_s) : []
        @sandbox = sandbox ? true : false
        @limits = Limits.of(limits, timeout)
        @timeout = timeout
        @mounts = Mounts.new(mounts)
        @on_write = on_write
        @interpreters = Interpreters.new
      end

      # Whether runs are sandboxed.
      def sandbox? = @sandbox

      # Whether runs happen in the store's own folder.
      def workspace? = !local_root.nil?

      # Raises RubyLLM::FileStore::SandboxError unless bubblewrap can make a
      # sandbox here, and WorkerError, naming the executable, when no code can run
      # at all (the process that runs code cannot start). Returns +self+.
      def check_sandbox!
        problem = @sandbox && Native.sandbox_problem
        raise SandboxError, "#{problem}. Install bubblewrap, or pass sandbox: false to run code unsandboxed." if problem

        self
      end

      # The named Python packages that do not import, checked once, in a run like
      # the model's.
      def missing_packages
        @missing_packages ||= @packages.reject { |name| importable?(name) }
      end

      # Runs +code+ in +language+ and returns a CodeRunner::Result. In copy mode
      # +files+ names the store paths to copy in (a folder copies all inside it).
      # The timeout holds for the whole call: what copying in took comes out of the
      # run's time, and saving back stops when it is up.
      def run(language:, code:, files: [])
        language = check_language(language)
        notes = package_notes(language)
        ends = Deadline.new(@timeout)
        result = workspace? ? run_in_place(language, code, ends) : run_on_copies(language, code, Array(files), ends)
        result.notes.unshift(*notes)
        result
      end

      private

      def local_root
        root = store.respond_to?(:local_root) ? store.local_root : nil
        root && File.directory?(root) ? root : nil
      end

      def run_in_place(language, code, deadline)
        store.with_lock do
          links = @mounts.link(local_root)
          begin
            outcome = execute(language, code, local_root, links.sources, deadline)
            outputs = outputs_of(outcome)
          ensure
            links.remove
          end
          outputs.keep_in_place(store, @on_write)
          Result.of(outcome, outputs, notes: links.notes + outcome[:notes])
        ensure
          # What the run set aside is removed within the call's time (none once interrupted), then on its own.
          Native.empty_removing(local_root, wait: $ERROR_INFO ? 0 : deadline.left) if local_root
        end
      end

      def run_on_copies(language, code, files, deadline)
        Copies.run_folder(@limits[:folder_bytes], @limits[:folder_files]) do |dir, reach|
          Copies.new(store).copy_in(files, reach)
          links = @mounts.link(reach)
          outcome = execute(language, code, dir, links.sources, deadline)
          outputs = outputs_of(outcome)
          links.remove
          saved, failed = Copies.new(store).save_back(reach, outputs, @on_write, deadline:)
          Result.of(outcome, outputs, notes: links.notes + outcome[:notes], saved:, failed:)
        end
      end

      def outputs_of(outcome)
        Outputs.new(store, outcome[:before], outcome[:after], changes: outcome[:changes],
                                                              budget: @limits[:save_bytes], files: @limits[:save_files])
      end

      def execute(language, code, dir, mount_sources, deadline)
        interpreter, read_only = @interpreters.for(language, sandbox: @sandbox)
        argv = Native.command(language:, interpreter:, code: code.to_s)
        native_run(argv, dir, (read_only + mount_sources).uniq, timeout: deadline.left)
      end

      def native_run(argv, dir, read_only, timeout: @timeout)
        Native.run(argv:, dir:, read_only:, sandbox: @sandbox, timeout: timeout.to_f, limits: Limits.native(@limits))
      end

      def importable?(name)
        code = "import importlib, sys\ntry:\n  importlib.import_module(sys.argv[1])\nexcept Exception:\n  sys.exit(1)"
        Dir.mktmpdir('ruby_llm_check') do |dir|
          interpreter, read_only = @interpreters.for('python', sandbox: @sandbox)
          native_run([interpreter, '-c', code, name], dir, read_only)[:exit_code].zero?
        end
      end

      def package_notes(language)
        return [] if language != 'python' || @package_reported

        @package_reported = true
        missing = missing_packages
        return [] if missing.empty?

        ["Not installed here, and nothing can be installed: #{missing.join(', ')}. Write the code without them."]
      end

      def check_language(language)
        language = language.to_s
        return language if @languages.include?(language)

        raise ArgumentError, "#{language.inspect} is not a language this chat runs: use #{@languages.join(' or ')}"
      end
    end
  end
end

require_relative 'code_runner/deadline'
require_relative 'code_runner/limits'
require_relative 'code_runner/interpreters'
require_relative 'code_runner/mounts'
require_relative 'code_runner/copies'
require_relative 'code_runner/shown'
require_relative 'code_runner/outputs'
require_relative 'code_runner/result'
