# frozen_string_literal: true

$LOAD_PATH.unshift File.expand_path('../lib', __dir__)
# RUBY_LLM_PATH names folders (joined with :) of ruby_llm and its runtime
# dependencies, or of Rails, one lib/ each; with it the specs tagged :ruby_llm run
# against the real thing.
if ENV['RUBY_LLM_PATH']
  sets = ENV['RUBY_LLM_PATH'].split(':')
  sets.reverse_each do |set|
    Dir[File.join(set, '*', 'lib')].reverse_each { |lib| $LOAD_PATH.unshift(lib) }
  end
  # Rails alone (RUBY_LLM_PATH=../shared/gems/rails-7.2) runs the suite on that Rails.
  require 'ruby_llm' if sets.any? { |set| Dir[File.join(set, '*', 'lib', 'ruby_llm.rb')].any? }
end
require 'ruby_llm/file_store'
require 'ruby_llm/file_store/rspec'
require 'tmpdir'

Dir[File.join(__dir__, 'support', '**', '*.rb')].each { |file| require file }

RSpec.configure do |config|
  config.disable_monkey_patching!
  config.order = :random
  config.example_status_persistence_file_path = '.rspec_status'
  config.expect_with(:rspec) { |expectations| expectations.max_formatted_output_length = 400 }

  # Without ruby_llm the examples that need it are left out, not shown as pending:
  # bin/test-ruby-llm runs them against each set of ruby_llm in the gem kit.
  unless defined?(RubyLLM::Chat)
    config.filter_run_excluding :ruby_llm
    config.before(:suite) { RubyLLMExamples.report_left_out }
  end
  # Asked for by tag (rspec --tag ruby_llm) without ruby_llm: each says why it waits.
  config.before(:each, :ruby_llm) do
    skip 'needs ruby_llm: set RUBY_LLM_PATH to a folder of ruby_llm and its dependencies' unless
      defined?(RubyLLM::Chat)
  end

  # STRESS=1 runs the examples tagged :native, which drive the binding directly,
  # under GC.stress, where a value the binding forgot to keep alive is collected at
  # once. The rest of the suite would take hours that way and tests no more of it.
  if ENV['STRESS']
    config.filter_run_including :native
    config.around(:each, :native) do |example|
      next example.run if example.metadata[:large]

      GC.stress = true
      begin
        example.run
      ensure
        GC.stress = false
      end
    end
  end
end
