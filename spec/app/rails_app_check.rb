# frozen_string_literal: true

require 'digest/sha2'
require 'json'
require 'tmpdir'
require_relative 'support/rails_app'

# The user's path into a Rails application, as commands: rails new, the generators by
# name, db:migrate, bin/rails runner, bin/rails server, and a headless Chromium on the
# page. One application per Rails version, made once per run and shared by the examples.
#
# With +acts_as_chat+, Chat is the model ruby_llm's own install generator makes, as a
# user of ruby_llm's Rails integration has it; otherwise a plain model including
# RubyLLM::ActiveRecord::ChatFiles, and ruby_llm's own Chat in a copy of the application
# on ruby_llm 1.16.0 (main does not run on Rails 6.1). ruby_llm's generated migrations do not run
# under an "LLM" acronym (ruby_llm names them CreateRubyLlmRecords), so the acronym is
# tried on the other application.
RSpec.shared_examples 'a generated Rails application' do |rails, acronym:, acts_as_chat:|
  files = File.join(__dir__, 'files')
  server_script = RailsApp::SCRIPTED_LLM_SERVER
  job_env = RailsApp::JOB_ENV

  declare_store = ->(app) { app.declare_chat_store }

  # Runs ask_in_job.rb in +app+ and reports the sizes of the requests it measured.
  ask_in_job = lambda do |app|
    output = app.run!('bin/rails', 'runner', 'ask_in_job.rb', env: job_env)
    sizes = output[/^request sizes: .*$/]
    RSpec.configuration.reporter.message("#{File.basename(app.dir)} (#{app.ruby_llm}): #{sizes}") if sizes
    output
  end

  # ruby_llm's generated job, as its template in the kit has it for Chat and Message.
  generated_job = lambda do |app|
    template = File.join(app.kit, app.ruby_llm, 'ruby_llm/lib/generators/ruby_llm/chat_ui/templates/jobs',
                         'chat_response_job.rb.tt')
    names = { 'chat_job_class_name' => 'ChatResponseJob', 'chat_variable_name' => 'chat', 'chat_model_name' => 'Chat',
              'message_variable_name' => 'message', 'message_table_name' => 'messages' }
    [File.read(File.join(app.dir, 'app/jobs/chat_response_job.rb')),
     File.read(template).gsub(/<%= (\w+) %>/) { names.fetch(Regexp.last_match(1)) }]
  end

  before(:context) do
    @base = Dir.mktmpdir('ruby_llm_file_store_app')
    @app = RailsApp.new(rails, @base)
    @app.create!
    if RailsApp.kit?('ruby_llm-1.16')
      # A copy made before any generator: the same steps again with ruby_llm 1.16.0.
      @app116 = RailsApp.new(rails, @base, ruby_llm: 'ruby_llm-1.16')
      @app116.create!(from: @app)
    end
    if acronym
      File.write(File.join(@app.dir, 'config/initializers/inflections.rb'),
                 "ActiveSupport::Inflector.inflections(:en) { |inflect| inflect.acronym \"LLM\" }\n")
    end
    @log = []
    step = ->(*command) { @log << [command.join(' '), @app.run!(*command)] }
    if acts_as_chat
      step.call('bin/rails', 'generate', 'ruby_llm:install') # runs active_storage:install itself
    else
      step.call('bin/rails', 'active_storage:install')
    end
    step.call('bin/rails', 'generate', 'ruby_llm_file_store:install')
    step.call('bin/rails', 'generate', 'model', 'Chat', 'title:string') unless acts_as_chat
    step.call('bin/rails', 'generate', 'model', 'User', 'name:string')
    @chat_ui = declare_store.call(@app) if acts_as_chat
    step.call('bin/rails', 'db:migrate')
    step.call('bin/rails', 'generate', 'ruby_llm_file_store:chat_ui')

    unless acts_as_chat
      chat_model = File.join(@app.dir, 'app/models/chat.rb')
      File.write(chat_model, File.read(chat_model).sub(/^end/, "  include RubyLLM::ActiveRecord::ChatFiles\nend"))
    end
    FileUtils.mkdir_p(File.join(@app.dir, 'app/views/chat_files'))
    FileUtils.cp(File.join(files, 'chat_files_controller.rb'), File.join(@app.dir, 'app/controllers'))
    FileUtils.cp(File.join(files, 'show.html.erb'), File.join(@app.dir, 'app/views/chat_files'))
    FileUtils.cp(File.join(files, 'exercise_files.rb'), File.join(@app.dir, 'script.rb'))
    %w[ask_with_file.rb checks.rb].each { |file| FileUtils.cp(File.join(files, file), @app.dir) } if acts_as_chat
    routes = File.join(@app.dir, 'config/routes.rb')
    File.write(routes, File.read(routes).sub(/draw do\n/, "\\0  get \"chats/:id/files\" => \"chat_files#show\"\n"))

    @exercise = JSON.parse(@app.run!('bin/rails', 'runner', 'script.rb').lines.last)
  end

  after(:context) { FileUtils.rm_rf(@base) if @base }

  def output_of(command)
    @log.assoc(command)&.last
  end

  it 'finds the generators by name, in bin/rails generate --help too' do
    expect(@app.run!('bin/rails', 'generate', '--help')).to include(
      'ruby_llm_file_store:chat_ui', 'ruby_llm_file_store:install', 'ruby_llm_file_store:upgrade'
    )
    expect(output_of('bin/rails generate ruby_llm_file_store:install')).to match(%r{create\s+db/migrate/\d+_create_ruby_llm_chat_files\.rb})
    expect(output_of('bin/rails generate ruby_llm_file_store:chat_ui')).to match(%r{create\s+app/views/chats/_files\.html\.erb})
  end

  it "runs the table's migration under db:migrate#{' with an LLM acronym' if acronym}" do
    expect(output_of('bin/rails db:migrate')).to include("#{acronym ? 'CreateRubyLLMChatFiles' : 'CreateRubyLlmChatFiles'}: migrated")
    expect(@app.run!('bin/rails', 'runner', 'puts ActiveRecord::Base.connection.table_exists?(:ruby_llm_chat_files)')).to end_with("true\n")
  end

  it "keeps shared files and each person's files apart, through bin/rails runner" do
    expect(@exercise['views']).to eq('shared' => ['brief.md', 'data/report.bin'],
                                     'ana' => ['ana-notes.md', 'brief.md', 'data/report.bin'],
                                     'ben' => ['brief.md', 'data/report.bin'])
    expect(@exercise['briefs']).to eq('shared' => "# Brief\n", 'ana' => "# Brief\n", 'ben' => "Ben's brief")
    expect(@exercise['rows']).to eq(4)
    expect(@exercise['rails']).to start_with("#{rails}.")
    expect(@exercise['ruby_llm']).to be_a(String)
  end

  if acts_as_chat
    it "asks with a file as ruby_llm's generated Chat (acts_as_chat) with an owner, through bin/rails runner" do
      output = @app.run!('bin/rails', 'runner', 'ask_with_file.rb', env: { 'SCRIPTED_LLM_SERVER' => server_script })
      expect(output).to include('/ruby_llm-main/ruby_llm/lib/ruby_llm/chat.rb), Rails 7.2', 'all checks passed')
      expect(output).not_to include('FAIL')
    end

    it 'answers the ChatResponseJob ruby_llm:chat_ui generates, streamed, performed now and on :async, ' \
       'finding and reading the PDF from the declared store' do
      expect(@chat_ui).to match(%r{create\s+app/jobs/chat_response_job\.rb})
      written, template = generated_job.call(@app)
      expect(written).to eq(template).and include('broadcast_append_chunk')
      output = ask_in_job.call(@app)
      expect(output).to include('/ruby_llm-main/ruby_llm/lib/ruby_llm/chat.rb), Rails 7.2.',
                                'jobs on ActiveJob::QueueAdapters::AsyncAdapter', 'all checks passed')
      expect(output).not_to include('FAIL')
    end

    # An application already on ruby_llm 1.16.0 that adds the gem: the upgrade generator.
    it 'does the same on ruby_llm 1.16.0, in a copy of the application, added with the upgrade generator',
       if: RailsApp.kit?('ruby_llm-1.16') do
      @app116.run!('bin/rails', 'generate', 'ruby_llm:install')
      @app116.run!('bin/rails', 'generate', 'model', 'User', 'name:string')
      expect(declare_store.call(@app116)).to match(%r{create\s+app/jobs/chat_response_job\.rb})
      written, template = generated_job.call(@app116)
      expect(written).to eq(template).and include('broadcast_append_chunk')
      expect(@app116.run!('bin/rails', 'db:migrate')).to include('CreateChats: migrated')
      expect(@app116.run!('bin/rails', 'generate', 'ruby_llm_file_store:upgrade'))
        .to match(%r{create\s+db/migrate/\d+_create_ruby_llm_chat_files\.rb})
      expect(@app116.run!('bin/rails', 'db:migrate')).to include('CreateRubyLlmChatFiles: migrated')
      %w[ask_with_file.rb checks.rb].each { |file| FileUtils.cp(File.join(files, file), @app116.dir) }
      output = @app116.run!('bin/rails', 'runner', 'ask_with_file.rb', env: { 'SCRIPTED_LLM_SERVER' => server_script })
      expect(output).to include('/ruby_llm-1.16/ruby_llm/lib/ruby_llm/chat.rb), Rails 7.2', 'all checks passed')
      expect(output).not_to include('FAIL')
      job = ask_in_job.call(@app116)
      expect(job).to include('/ruby_llm-1.16/ruby_llm/lib/ruby_llm/chat.rb), Rails 7.2.',
                             'jobs on ActiveJob::QueueAdapters::AsyncAdapter', 'all checks passed')
      expect(job).not_to include('FAIL')
    end
  end

  unless acts_as_chat
    # ruby_llm main cannot ask on Rails 6.1: its chat preloads the messages with Rails 7's
    # Preloader.new(records:, associations:) (ArgumentError: unknown keywords on 6.1), and
    # its chat UI generator reads ActionDispatch::Constants, which 6.1 does not have.
    # ruby_llm 1.16.0 runs on 6.1 with its own install and chat UI generators, so the job
    # is asked in the copy of the application on 1.16.0, as its users would have it.
    it "answers the ChatResponseJob ruby_llm 1.16.0's chat_ui generates on Rails 6.1, streamed, performed now " \
       'and on :async, finding and reading the PDF from the declared store', if: RailsApp.kit?('ruby_llm-1.16') do
      expect(@app116.run!('bin/rails', 'generate', 'ruby_llm:install')).to match(%r{create\s+app/models/chat\.rb})
      @app116.run!('bin/rails', 'generate', 'ruby_llm_file_store:install')
      @app116.run!('bin/rails', 'generate', 'model', 'User', 'name:string')
      expect(declare_store.call(@app116)).to match(%r{create\s+app/jobs/chat_response_job\.rb})
      written, template = generated_job.call(@app116)
      expect(written).to eq(template).and include('broadcast_append_chunk')
      expect(@app116.run!('bin/rails', 'db:migrate')).to include('CreateChats: migrated', 'CreateRubyLlmChatFiles: migrated')
      FileUtils.cp(File.join(files, 'checks.rb'), @app116.dir)
      output = ask_in_job.call(@app116)
      expect(output).to include('/ruby_llm-1.16/ruby_llm/lib/ruby_llm/chat.rb), Rails 6.1.',
                                'jobs on ActiveJob::QueueAdapters::AsyncAdapter', 'all checks passed')
      expect(output).not_to include('FAIL')
    end
  end

  context 'when served by bin/rails server on 127.0.0.1' do
    around do |example|
      @app.serve do |url|
        @url = url
        example.run
      end
    end

    let(:page_url) { "#{@url}/chats/#{@exercise['chat']}/files" }

    it 'lists the shared files with download links that give the same bytes' do
      page = RailsApp.get(page_url)
      expect(page.code).to eq('200')
      links = page.body.scan(/<a [^>]*href="([^"]+)"[^>]*>([^<]+)</).map { |href, text| [text, href] }
      expect(links.map(&:first)).to eq(['brief.md', 'data/report.bin'])
      expect(page.body).not_to include('ana-notes')
      links.each do |path, href|
        download = RailsApp.get(URI.join(@url, CGI.unescapeHTML(href)).to_s)
        expect(download.code).to eq('200')
        expect(download['content-disposition']).to start_with('attachment')
        expect(Digest::SHA256.hexdigest(download.body)).to eq(@exercise['digests'].fetch(path))
      end
    end

    it 'shows a person in headless Chromium the shared files, not the other person\'s, and downloads the same bytes' do
      dom = Dir.mktmpdir('chromium') do |profile|
        @app.run!('chromium', '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
                  '--disable-background-networking', '--disable-component-update', '--disable-sync',
                  "--user-data-dir=#{profile}", '--virtual-time-budget=15000', '--dump-dom', page_url)
      end
      listed = dom.scan(%r{<li>\s*<a [^>]*>([^<]+)</a>}).flatten
      expect(listed).to eq(['brief.md', 'data/report.bin'])
      expect(dom).not_to include('ana-notes')
      downloads = dom[%r{<pre id="downloads">(.*?)</pre>}m, 1].to_s.lines.to_h(&:split)
      expect(downloads).to eq(@exercise['digests'])
    end
  end
end

RSpec.describe 'a Rails application using the gem' do
  describe "on Debian's Rails 6.1" do
    it_behaves_like 'a generated Rails application', '6.1', acronym: true, acts_as_chat: false
  end

  describe 'on Rails 7.2 from the offline kit', if: RailsApp.kit?('rails-7.2') && RailsApp.kit?('ruby_llm-main') do
    it_behaves_like 'a generated Rails application', '7.2', acronym: false, acts_as_chat: true
  end
end
