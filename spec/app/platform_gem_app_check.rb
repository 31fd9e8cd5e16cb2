# frozen_string_literal: true

require 'json'
require 'tmpdir'
require_relative 'support/platform_gem_app'

RSpec.describe 'a Rails application using the precompiled gem through Bundler, without Rust' do
  files = File.join(__dir__, 'files')

  before(:context) do
    @base = Dir.mktmpdir('ruby_llm_file_store_platform_app')
    @home = File.join(@base, 'gems')
    @app = PlatformGemApp.new('6.1', @base, home: @home)
    @app.create!
    [%w[active_storage:install], %w[generate ruby_llm_file_store:install], %w[generate model Chat title:string],
     %w[generate model User name:string], %w[db:migrate]].each { |step| @app.run!('bin/rails', *step) }
    chat_model = File.join(@app.dir, 'app/models/chat.rb')
    File.write(chat_model, File.read(chat_model).sub(/^end/, "  include RubyLLM::ActiveRecord::ChatFiles\nend"))
    FileUtils.cp(File.join(files, 'exercise_files.rb'), File.join(@app.dir, 'script.rb'))
  end

  after(:context) { FileUtils.rm_rf(@base) if @base }

  let(:installed) { File.join(@home, 'gems', "ruby_llm-file_store-#{GemBuilds.version}-x86_64-linux") }

  it_behaves_like 'an application on the precompiled gem',
                  ['bundle', 'exec', 'ruby', '-e', 'require "ruby_llm/file_store"; puts $LOADED_FEATURES.grep(/file_store_native/)']

  it "keeps a chat's files in Active Storage, and a folder store searches and converts, through bin/rails runner" do
    exercise = JSON.parse(@app.run!('bin/rails', 'runner', 'script.rb').lines.last)
    expect(exercise['views']).to eq('shared' => ['brief.md', 'data/report.bin'],
                                    'ana' => ['ana-notes.md', 'brief.md', 'data/report.bin'],
                                    'ben' => ['brief.md', 'data/report.bin'])
    expect(exercise['rows']).to eq(4)
    expect(exercise['rails']).to start_with('6.1.')

    seen = JSON.parse(@app.run!('bin/rails', 'runner', GemBuilds::CHECK, File.join(@base, 'store')).lines.last)
    expect(seen['native']).to eq(["#{installed}/lib/ruby_llm/file_store/#{GemBuilds.minor}/file_store_native.so"])
    expect(seen['search']).to eq("notes/plan.md:2: Ship it on Friday\npage.html:2: Revenue grew")
    expect(seen['text']).to eq("# Quarterly report\nRevenue grew\n")
    expect(seen['pdf']).to eq('report.pdf:3: Revenue grew 12 percent in the third quarter, led by the northern region.')
    expect(seen['ruby_llm']).not_to be_empty
  end
end
