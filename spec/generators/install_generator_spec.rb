# frozen_string_literal: true

require 'open3'
require 'rbconfig'

RSpec.describe 'ruby_llm_file_store:install' do
  include TmpDirHelper

  before do
    require 'rails/generators'
    require_relative '../../lib/generators/ruby_llm_file_store/install_generator'
  rescue LoadError => e
    skip "needs railties: #{e.message}"
  end

  it 'writes the migration, which creates the table with its unique index when run' do
    RubyLLMFileStore::Generators::InstallGenerator.start(['--quiet'], destination_root: tmp_dir)
    migrations = Dir[File.join(tmp_dir, 'db/migrate/*_create_ruby_llm_chat_files.rb')]
    expect(migrations.size).to eq(1)
    expect(File.read(migrations.first)).to include("ActiveRecord::Migration[#{ActiveRecord::VERSION::MAJOR}.")

    script = <<~RUBY
      require "active_record"
      ActiveRecord::Base.establish_connection(adapter: "sqlite3", database: #{File.join(tmp_dir, 'app.sqlite3').inspect})
      ActiveRecord::Migration.verbose = false
      load #{migrations.first.inspect}
      CreateRubyLLMChatFiles.new.migrate(:up)
      connection = ActiveRecord::Base.connection
      puts connection.columns(:ruby_llm_chat_files).map(&:name).join(",")
      index = connection.indexes(:ruby_llm_chat_files).find(&:unique)
      puts [index.name, index.columns.join(",")].join(" ")
    RUBY
    output, status = Open3.capture2e(RbConfig.ruby, '-e', script)
    expect(status).to be_success, output
    expect(output.lines.map(&:chomp)).to eq(
      ['id,chat_type,chat_id,owner_type,owner_id,owner_key,path,content_type,byte_size,digest,text,created_at,updated_at',
       'index_ruby_llm_chat_files_uniqueness chat_type,chat_id,owner_key,path']
    )
  end
end
