# frozen_string_literal: true

# Runs one README or docs/ block in a process of its own, in the folder it is started in:
#
#   ruby spec/readme/runner.rb job.json
#
# The job (written by spec/readme/blocks_spec.rb) holds the block's code and where it
# is, and its setup from spec/readme/setups.rb. The block runs as written, after its
# setup's `before`; where it needs ruby_llm, with ruby_llm configured for a scripted
# server on 127.0.0.1 answering the setup's `replies`. Two kinds of comment
# are claims the run checks, on a line that is a whole statement by itself:
#
#   RubyLLM::FileStore.path("./a//b.md") # => "a/b.md"          (the value's inspect; ... matches anything)
#   RubyLLM::FileStore.path("../x")      # ArgumentError: "../x" is not a path inside the chat's files
#
# A block whose first line is `# Gemfile` is read as a Gemfile, by Bundler's own
# DSL. Prints "ok" and exits 0 when the block ran and every claim held.
require 'json'
require 'ripper'

ROOT = File.expand_path('../..', __dir__)

# Loading, running and checking one block.
module ReadmeRun
  RETURNS = /\A(?<indent>\s*)(?<code>\S.*?)\s+# => (?<expected>.+)\z/
  RAISES = /\A(?<indent>\s*)(?<code>\S.*?)\s+# (?<error>(?:[A-Z]\w*::)*[A-Z]\w*Error): (?<message>.+)\z/

  # A claim in a comment that did not hold.
  class ClaimFailed < StandardError; end

  class << self
    attr_reader :server

    # The kit first, as spec/spec_helper.rb puts it, then the checkout's lib/.
    def load_paths
      require File.join(ROOT, 'spec/ruby_llm_path')
      RubyLLMPath.load!
      $LOAD_PATH.unshift(File.join(ROOT, 'lib'))
    end

    def load_gem(needs)
      require 'ruby_llm' if needs.include?('ruby_llm')
      require 'ruby_llm/file_store'
      return unless needs.include?('rails')

      # The specs' own Active Record on SQLite; their files also register RSpec hooks.
      require 'rspec/core'
      %w[active_storage_servers active_storage_app active_storage_db rails_models acts_as_chat_db
         acts_as_chat_release_db acts_as_chat_mariadb].each { |file| require File.join(ROOT, 'spec/support', file) }
      ActiveStorageDB.setup!
      # bin/test-ruby-llm names the Rails each run is for, as the specs check it.
      rails = ENV.fetch('RUBY_LLM_FILE_STORE_RAILS', nil)
      raise "asked for Rails #{rails}, loaded Active Record #{ActiveRecord.version}" if
        rails && !"#{ActiveRecord.version}.".start_with?("#{rails}.")
    end

    # Starts the scripted server and points ruby_llm's configuration at it, as an
    # application configures its provider: a block that asks more than the replies
    # scripted gets an error.
    def serve(replies)
      require File.join(ROOT, 'spec/support/scripted_llm_server')
      @server = ScriptedLLMServer.start
      RubyLLM.configure { |config| server.point(config) }
      server.script(TOPLEVEL_BINDING.eval(replies, 'spec/readme/setups.rb')) if replies
    end

    # The block's code with each claim turned into its check, line for line.
    def checked(code, first_line)
      code.lines.each_with_index.map do |line, index|
        number = first_line + index
        if (claim = RAISES.match(line.chomp)) && statement?(claim[:code])
          "#{claim[:indent]}ReadmeRun.raises(#{claim[:error]}, #{claim[:message].inspect}, #{number}) " \
            "{ #{claim[:code]} }\n"
        elsif (claim = RETURNS.match(line.chomp)) && statement?(claim[:code])
          "#{claim[:indent]}ReadmeRun.returns(#{claim[:expected].inspect}, #{number}, (#{claim[:code]}))\n"
        else
          line
        end
      end.join
    end

    def statement?(code)
      !Ripper.sexp(code).nil?
    end

    def returns(expected, line, value)
      return value if pattern(expected).match?(value.inspect)

      raise ClaimFailed, "line #{line}: the comment says => #{expected}, the value is #{value.inspect}"
    end

    def raises(error, message, line)
      yield
      raise ClaimFailed, "line #{line}: the comment says it raises #{error}, and it raised nothing"
    rescue error => e
      return if pattern(message).match?(e.message)

      raise ClaimFailed, "line #{line}: the comment says #{error}: #{message}, the message is #{e.message.inspect}"
    end

    # The text of a claim as a pattern where ... stands for anything.
    def pattern(text)
      Regexp.new("\\A#{text.split('...', -1).map { |part| Regexp.escape(part) }.join('.*')}\\z", Regexp::MULTILINE)
    end

    def gemfile(code, file, line)
      require 'bundler'
      dsl = Bundler::Dsl.new
      dsl.instance_eval(code, file, line)
      name = Gem::Specification.load(File.join(ROOT, 'ruby_llm-file_store.gemspec')).name
      names = dsl.dependencies.map(&:name)
      raise ClaimFailed, "the Gemfile names #{names.inspect}, not the gem #{name}" unless names.include?(name)
    end

    # The block as an RSpec file would hold it, run by RSpec in this process.
    def rspec(code, file, line)
      require 'rspec/core'
      TOPLEVEL_BINDING.eval(code, file, line)
      status = RSpec::Core::Runner.run(%w[--format progress])
      raise ClaimFailed, "RSpec ran the block's examples and exited #{status}" unless status.zero?
    end

    def finish
      return unless server

      left = server.pending_replies
      raise ClaimFailed, "the block made fewer requests than scripted: #{left} replies left" if left.positive?
    ensure
      server&.stop
    end

    # Runs the job, at the top level of the program as a script would run, in
    # TOPLEVEL_BINDING: the locals the setup makes are the block's.
    def main(job)
      load_paths
      load_gem(job.fetch('needs'))
      serve(job['replies']) if job.fetch('needs').include?('ruby_llm')
      run_setup(job['before'])
      run_block(job.fetch('code'), job.fetch('file'), job.fetch('line'), job['runner'])
      run_setup(job['after'])
      finish
    end

    def run_setup(code)
      TOPLEVEL_BINDING.eval(code, 'spec/readme/setups.rb') if code
    end

    def run_block(code, file, line, runner)
      return gemfile(code, file, line) if code.start_with?("# Gemfile\n")
      return rspec(code, file, line) if runner == 'rspec'

      TOPLEVEL_BINDING.eval(checked(code, line), file, line)
    end
  end
end

ReadmeRun.main(JSON.parse(File.read(ARGV.fetch(0))))
puts 'ok'
