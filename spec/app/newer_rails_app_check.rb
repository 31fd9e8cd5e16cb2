# frozen_string_literal: true

require 'tmpdir'
require_relative 'support/platform_gem_app'

# The stack an application started today runs: Ruby 3.3, Rails 8.1 and the unpatched
# ruby_llm main (../shared/gems/modern), in the newer stack's root (bin/test-newer runs
# this there). The application is made with `rails new`, takes the precompiled gem
# through Bundler with Rust hidden, declares its store on ruby_llm's own Chat
# (acts_as_chat) and asks about a PDF from the ChatResponseJob ruby_llm generates.
newer = RUBY_VERSION >= '3.3' && RailsApp.kit?('modern/rails-8.1') && RailsApp.kit?('modern/ruby_llm-main')
RSpec.describe 'a Rails 8.1 application on Ruby 3.3 using the precompiled gem through acts_as_chat', if: newer do
  before(:context) do
    @base = Dir.mktmpdir('ruby_llm_file_store_rails81')
    @home = File.join(@base, 'gems')
    @app = PlatformGemApp.new('8.1', @base, home: @home)
    @app.create!
    @app.run!('bin/rails', 'generate', 'ruby_llm:install') # runs active_storage:install itself
    @app.run!('bin/rails', 'generate', 'ruby_llm_file_store:install')
    @app.run!('bin/rails', 'generate', 'model', 'User', 'name:string')
    @chat_ui = @app.declare_chat_store
    @migrated = @app.run!('bin/rails', 'db:migrate')
    FileUtils.cp(File.join(RailsApp::FILES, 'checks.rb'), @app.dir)
  end

  after(:context) { FileUtils.rm_rf(@base) if @base }

  it_behaves_like 'an application on the precompiled gem',
                  ['bin/rails', 'runner', 'puts $LOADED_FEATURES.grep(/file_store_native/)']

  it 'migrates the tables of ruby_llm and of the gem' do
    expect(@migrated).to include('CreateChats: migrated', 'CreateRubyLlmChatFiles: migrated')
  end

  it 'answers the ChatResponseJob ruby_llm:chat_ui generates, finding and reading the PDF from the declared store, ' \
     'with one blob for the attachment and its one line in the second request' do
    expect(@chat_ui).to match(%r{create\s+app/jobs/chat_response_job\.rb})
    output = @app.run!('bin/rails', 'runner', 'ask_in_job.rb', env: RailsApp::JOB_ENV)
    expect(output).to include('/ruby_llm-main/ruby_llm/lib/ruby_llm/chat.rb), Rails 8.1.',
                              'jobs on ActiveJob::QueueAdapters::AsyncAdapter', 'all checks passed')
    expect(output).not_to include('FAIL')
  end
end
