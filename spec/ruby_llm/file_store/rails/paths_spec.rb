# frozen_string_literal: true

# Paths compare byte for byte on every database: "a.txt" and "a.txt " are two files,
# as they are in a folder store. On MariaDB the column's collation does not pad; a
# table made before (utf8mb4_bin, which pads) refuses the second path with an error
# that names it, until the upgrade generator's migration changes the column. On SQLite
# here, on PostgreSQL and MariaDB in bin/test-databases.
RSpec.describe 'RubyLLM::ActiveRecord::FileStore paths', :rails do
  let(:chat) { Chat.create!(model_id: 'gpt-4.1-mini') }
  let(:store) { RubyLLM.file_store.active_storage(chat) }
  let(:write_file) { RubyLLM::FileStore::Tools::WriteFile.new(store) }

  it 'keeps paths that differ only by trailing spaces or case as files of their own' do
    paths = ['a.txt', 'a.txt ', 'a.txt  ', 'A.txt']
    paths.each { |path| expect(write_file.call(path:, content: "at #{path.inspect}")).to start_with('Wrote') }
    expect(store.list.map(&:path).sort).to eq(paths.sort)
    paths.each { |path| expect(store.read(path)).to eq("at #{path.inspect}") }
  end

  if ENV['RUBY_LLM_FILE_STORE_DATABASE_URL'].to_s.start_with?('mysql')
    def path_collation
      ActiveRecord::Base.connection.columns(:ruby_llm_chat_files).find { |column| column.name == 'path' }.collation
    end

    # The upgrade generator's migration, rendered as an application would get it.
    def upgrade_migration
      template = File.expand_path(
        '../../../../lib/generators/ruby_llm_file_store/templates/byte_order_ruby_llm_chat_file_paths.rb.tt', __dir__
      )
      migration_version = "[#{ActiveRecord::Migration.current_version}]"
      migration_class_name = 'UnpadRubyLLMChatFilePaths' # read by the template
      namespace = Module.new
      namespace.module_eval(ERB.new(File.read(template), trim_mode: '-').result(binding), template, 1)
      namespace.const_get(migration_class_name)
    end

    def collate(collation)
      ActiveRecord::Base.connection.change_column(:ruby_llm_chat_files, :path, :string, null: false, collation:)
      RubyLLM::ActiveRecord::ChatFile.reset_column_information
    end

    it 'refuses, naming it, a path a padding column takes for another, until the upgrade migration' do
      expect(path_collation).to eq('utf8mb4_nopad_bin')
      # Rows other examples left may differ only by trailing spaces, which the padding
      # column to come would take for one: it starts from an empty table.
      RubyLLM::ActiveRecord::ChatFile.delete_all
      collate('utf8mb4_bin')
      expect(write_file.call(path: 'a.txt', content: 'first')).to start_with('Wrote')
      refused = write_file.call(path: 'a.txt ', content: 'second')
      expect(refused).to start_with('Error: "a.txt " was not written')
      expect(refused).not_to match(/RecordNotUnique|Duplicate entry|index_ruby_llm/)
      # The refused write's transaction is rolled back; the next one goes on.
      expect(store.with_lock { store.write('b.txt', 'after').path }).to eq('b.txt')

      ActiveRecord::Migration.suppress_messages { upgrade_migration.migrate(:up) }
      RubyLLM::ActiveRecord::ChatFile.reset_column_information
      expect(path_collation).to eq('utf8mb4_nopad_bin')
      expect(write_file.call(path: 'a.txt ', content: 'second')).to start_with('Wrote')
      expect([store.read('a.txt'), store.read('a.txt ')]).to eq(%w[first second])
    ensure
      collate('utf8mb4_nopad_bin')
    end
  end
end
