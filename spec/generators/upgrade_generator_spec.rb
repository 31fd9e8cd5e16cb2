# frozen_string_literal: true

require 'open3'
require 'rbconfig'

RSpec.describe 'ruby_llm_file_store:upgrade' do
  include TmpDirHelper

  before do
    require 'rails/generators'
    require_relative '../../lib/generators/ruby_llm_file_store/upgrade_generator'
  rescue LoadError => e
    skip "needs railties: #{e.message}"
  end

  def generate(name)
    generator = RubyLLMFileStore::Generators.const_get("#{name.capitalize}Generator")
    generator.start(['--quiet'], destination_root: tmp_dir)
    Dir[File.join(tmp_dir, 'db/migrate/*_create_ruby_llm_chat_files.rb')]
  end

  # Runs +ruby+ against the application's database in a process of its own.
  def in_app(ruby)
    script = <<~RUBY
      require "active_record"
      ActiveRecord::Base.establish_connection(adapter: "sqlite3", database: #{File.join(tmp_dir, 'app.sqlite3').inspect})
      ActiveRecord::Migration.verbose = false
      #{ruby}
    RUBY
    output, status = Open3.capture2e(RbConfig.ruby, '-e', script)
    expect(status).to be_success, output
    output.lines.map(&:chomp)
  end

  it "adds the table beside ruby_llm's tables, leaving them and their rows alone" do
    in_app(<<~RUBY)
      ActiveRecord::Schema.define do
        create_table(:ruby_llm_models) { |t| t.string :model_id, :name, :provider, null: false }
        create_table(:chats) { |t| t.references :ruby_llm_model, null: false; t.timestamps }
        create_table(:messages) { |t| t.references :chat, null: false; t.string :role; t.text :content; t.timestamps }
      end
      ActiveRecord::Base.connection.execute("INSERT INTO chats (ruby_llm_model_id, created_at, updated_at) VALUES (1, '2025-01-01', '2025-01-01')")
    RUBY

    migrations = generate('upgrade')
    expect(migrations.size).to eq(1)

    output = in_app(<<~RUBY)
      #{MigrationCode.migrate(File.dirname(migrations.first))}
      connection = ActiveRecord::Base.connection
      puts connection.tables.sort.join(",")
      puts connection.select_value("SELECT COUNT(*) FROM chats")
      puts connection.indexes(:ruby_llm_chat_files).find(&:unique).columns.join(",")
    RUBY
    expect(output).to eq(['ar_internal_metadata,chats,messages,ruby_llm_chat_files,ruby_llm_models,schema_migrations', '1', 'chat_type,chat_id,owner_key,path'])
  end

  it 'skips an application that has the migration, from the install generator or an earlier upgrade' do
    installed = generate('install')
    expect(generate('upgrade')).to eq(installed)
    expect(generate('upgrade')).to eq(installed)
  end

  it 'brings a table an earlier version created up to date, once, and runs under db:migrate' do
    migration = File.join(tmp_dir, 'db/migrate/20250101000000_create_ruby_llm_chat_files.rb')
    FileUtils.mkdir_p(File.dirname(migration))
    File.write(migration, <<~RUBY)
      class CreateRubyLlmChatFiles < ActiveRecord::Migration[6.1]
        def change
          create_table(:ruby_llm_chat_files) { |t| t.string :path, null: false }
        end
      end
    RUBY
    2.times { generate('upgrade') }
    names = Dir[File.join(tmp_dir, 'db/migrate/*.rb')].map { |path| File.basename(path)[/_(\D.*)/, 1] }
    expect(names.sort).to eq(%w[byte_order_ruby_llm_chat_file_paths.rb create_ruby_llm_chat_files.rb
                                digest_ruby_llm_chat_file_paths.rb whole_ruby_llm_chat_file_paths.rb])

    output = in_app(<<~RUBY)
      #{MigrationCode.migrate(File.dirname(migration))}
      puts ActiveRecord::Base.connection.select_value("SELECT COUNT(*) FROM schema_migrations")
    RUBY
    expect(output).to eq(['4'])
  end

  it 'gives a table byte-ordered with a padding collation the migration again, once, as unpad' do
    migration = File.join(tmp_dir, 'db/migrate/20250101000000_create_ruby_llm_chat_files.rb')
    FileUtils.mkdir_p(File.dirname(migration))
    File.write(migration, <<~RUBY)
      class CreateRubyLlmChatFiles < ActiveRecord::Migration[6.1]
        def change
          create_table(:ruby_llm_chat_files) { |t| t.string :path, null: false, collation: path_collation }
        end

        def path_collation = nil # utf8mb4_bin on MySQL, before
      end
    RUBY
    2.times { generate('upgrade') }
    names = Dir[File.join(tmp_dir, 'db/migrate/*.rb')].map { |path| File.basename(path)[/_(\D.*)/, 1] }
    expect(names.sort).to eq(%w[create_ruby_llm_chat_files.rb digest_ruby_llm_chat_file_paths.rb
                                unpad_ruby_llm_chat_file_paths.rb whole_ruby_llm_chat_file_paths.rb])
    output = in_app(<<~RUBY)
      #{MigrationCode.migrate(File.dirname(migration))}
      puts ActiveRecord::Base.connection.select_value("SELECT COUNT(*) FROM schema_migrations")
    RUBY
    expect(output).to eq(['4'])
  end

  it 'adds no update to a table this version created' do
    generate('install')
    generate('upgrade')
    expect(Dir[File.join(tmp_dir, 'db/migrate/*.rb')].map { |path| File.basename(path)[/_(\D.*)/, 1] })
      .to eq(['create_ruby_llm_chat_files.rb'])
  end

  it 'says what it skipped' do
    generate('install')
    output = capture_stdout do
      RubyLLMFileStore::Generators::UpgradeGenerator.start([], destination_root: tmp_dir)
    end
    expect(output).to match(%r{skip\s+db/migrate/\d+_create_ruby_llm_chat_files\.rb creates the table already})
  end

  def capture_stdout
    original = $stdout
    $stdout = StringIO.new
    yield
    $stdout.string
  ensure
    $stdout = original
  end
end
