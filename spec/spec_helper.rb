# frozen_string_literal: true

$LOAD_PATH.unshift File.expand_path('../lib', __dir__)
# ruby_llm, which the gem requires, from RUBY_LLM_PATH or the gem kit (ruby_llm_path.rb);
# with Rails in RUBY_LLM_PATH (../shared/gems/rails-7.2) the suite runs on that Rails.
require_relative 'ruby_llm_path'
RubyLLMPath.load!
require 'ruby_llm/file_store'
require 'ruby_llm/file_store/rspec'
require 'tmpdir'

Dir[File.join(__dir__, 'support', '**', '*.rb')].each { |file| require file }

RSpec.configure do |config|
  config.disable_monkey_patching!
  config.order = :random
  config.example_status_persistence_file_path = '.rspec_status'
  config.expect_with(:rspec) { |expectations| expectations.max_formatted_output_length = 400 }

  # The examples that plug into ruby_llm's chats (tagged :ruby_llm) run where
  # RUBY_LLM_PATH names a ruby_llm: bin/test-ruby-llm runs them against each set of
  # ruby_llm in the gem kit. A plain run leaves them out, saying so in one line;
  # asked for by tag (rspec --tag ruby_llm), they run on the ruby_llm loaded.
  unless RubyLLMPath.ruby_llm_named?
    config.filter_run_excluding :ruby_llm
    config.before(:suite) { RubyLLMExamples.report_left_out }
  end

  # bin/test fast leaves out the examples tagged :large (files of hundreds of MB, the
  # hostile documents, the convert worker's ceilings) and :slow (threads, processes and
  # interrupts counted by the thousand), each seconds long; bin/test runs them all.
  # bin/test-databases runs the :storm ones (interrupt storms into a pool's threads, 8
  # to 12 s here, RUBY_LLM_FILE_STORE_STORM_SECONDS there) a second time on each
  # database, with the blobs on the Disk service instead of S3.

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
