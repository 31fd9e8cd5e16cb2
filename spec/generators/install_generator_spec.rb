# frozen_string_literal: true

require 'open3'
require 'rbconfig'

RSpec.describe 'ruby_llm_file_store:install' do
  include TmpDirHelper

  before do
    require 'rails/generators'
  rescue LoadError => e
    skip "needs railties: #{e.message}"
  end

  # Generates the migration in a process of its own (inflections are global), finds
  # the generator by its name as bin/rails generate does, then migrates the way
  # db:migrate does: the class name derived from the file name.
  def generate_and_migrate(inflections)
    script = <<~RUBY
      $LOAD_PATH.unshift #{File.expand_path('../../lib', __dir__).inspect}
      require "rails/generators"
      require "active_record"
      ActiveSupport::Inflector.inflections(:en) { |inflect| #{inflections} }
      Rails::Generators.invoke("ruby_llm_file_store:install", ["--quiet"], destination_root: #{tmp_dir.inspect})
      ActiveRecord::Base.establish_connection(adapter: "sqlite3", database: #{File.join(tmp_dir, 'app.sqlite3').inspect})
      ActiveRecord::Migration.verbose = false
      #{MigrationCode.migrate(File.join(tmp_dir, 'db/migrate'))}
      puts Dir[#{File.join(tmp_dir, 'db/migrate/*.rb').inspect}].map { |path| File.read(path)[/^class \\w+/] }
      connection = ActiveRecord::Base.connection
      puts connection.columns(:ruby_llm_chat_files).map(&:name).join(",")
      index = connection.indexes(:ruby_llm_chat_files).find(&:unique)
      puts [index.name, index.columns.join(",")].join(" ")
    RUBY
    output, status = Open3.capture2e(RbConfig.ruby, '-e', script)
    expect(status).to be_success, output
    output.lines.map(&:chomp)
  end

  let(:table) do
    ['id,chat_type,chat_id,owner_type,owner_id,owner_key,path,content_type,byte_size,digest,text,created_at,updated_at',
     'index_ruby_llm_chat_files_uniqueness chat_type,chat_id,owner_key,path']
  end

  it 'writes a migration that db:migrate runs, creating the table with its unique index' do
    expect(generate_and_migrate('')).to eq(['class CreateRubyLlmChatFiles', *table])
  end

  it 'names the migration class as db:migrate derives it under an "LLM" acronym' do
    expect(generate_and_migrate('inflect.acronym "LLM"')).to eq(['class CreateRubyLLMChatFiles', *table])
  end

  it 'says when config/database.yml names MariaDB or MySQL without utf8mb4, and not with it' do
    require_relative '../../lib/generators/ruby_llm_file_store/install_generator'
    FileUtils.mkdir_p(File.join(tmp_dir, 'config'))
    said = ['encoding: utf8', 'encoding: utf8mb4'].map do |encoding|
      File.write(File.join(tmp_dir, 'config/database.yml'), "default: &default\n  adapter: mysql2\n  #{encoding}\n")
      FileUtils.rm_rf(File.join(tmp_dir, 'db'))
      capture_stdout { RubyLLMFileStore::Generators::InstallGenerator.start([], destination_root: tmp_dir) }
    end
    expect(said[0]).to match(%r{warn\s+config/database.yml names MySQL or MariaDB without encoding: utf8mb4})
    expect(said[1]).not_to include('utf8mb4')
  end

  def capture_stdout
    original = $stdout
    $stdout = StringIO.new
    yield
    $stdout.string
  ensure
    $stdout = original
  end

  it 'writes the migration version of the Active Record it runs on' do
    require_relative '../../lib/generators/ruby_llm_file_store/install_generator'
    RubyLLMFileStore::Generators::InstallGenerator.start(['--quiet'], destination_root: tmp_dir)
    migration = File.read(Dir[File.join(tmp_dir, 'db/migrate/*_create_ruby_llm_chat_files.rb')].first)
    expect(migration).to include("ActiveRecord::Migration[#{ActiveRecord::VERSION::MAJOR}.")
  end
end
