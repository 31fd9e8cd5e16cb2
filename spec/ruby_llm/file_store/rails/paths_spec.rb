# frozen_string_literal: true

# Paths compare byte for byte on every database: "a.txt" and "a.txt " are two files,
# as they are in a folder store. On MariaDB the column's collation does not pad; a
# table made before (utf8mb4_bin, which pads) refuses the second path with an error
# that names it, until the upgrade generator's migration changes the column. A path is
# kept whole up to 4,096 bytes; on a table made before, one longer than its column
# (MariaDB) or its index (PostgreSQL) holds is refused, not cut, naming it, until the
# upgrade generator's migration, and a MariaDB connection must speak utf8mb4. On SQLite here, on
# PostgreSQL and MariaDB in bin/test-databases.
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

  # Parts of 250 random letters and digits (which do not compress) and a 4-byte
  # character, joined up to +bytes+.
  def long_path(bytes)
    rng = Random.new(RSpec.configuration.seed)
    letters = [*'a'..'z', *'A'..'Z', *'0'..'9']
    parts = []
    parts << "#{Array.new(246) { letters.sample(random: rng) }.join}\u{1F600}" while parts.join('/').bytesize < bytes
    path = parts.join('/').byteslice(0, bytes).scrub('')
    path.end_with?('/') ? path.chop : path
  end

  it 'stores a path of 4,096 bytes whole, and finds it' do
    path = long_path(4096)
    expect(path.bytesize).to be > 4090
    expect(write_file.call(path:, content: 'first')).to start_with('Wrote')
    expect(write_file.call(path:, content: 'second')).to start_with('Wrote')
    expect([store.list.map(&:path), store.read(path)]).to eq([[path], 'second'])
    expect(store.list(File.dirname(path)).map(&:path)).to eq([path])
  end

  # An upgrade generator's migration, rendered as an application would get it.
  def migration(name, class_name)
    template = File.expand_path("../../../../lib/generators/ruby_llm_file_store/templates/#{name}.rb.tt", __dir__)
    migration_version = "[#{ActiveRecord::Migration.current_version}]"
    migration_class_name = class_name # read by the template
    namespace = Module.new
    namespace.module_eval(ERB.new(File.read(template), trim_mode: '-').result(binding), template, 1)
    namespace.const_get(migration_class_name)
  end

  if ENV['RUBY_LLM_FILE_STORE_DATABASE_URL'].to_s.start_with?('postgres')
    def digest_migration = migration('digest_ruby_llm_chat_file_paths', 'DigestRubyLLMChatFilePaths')

    # A table made before, unique over the path itself.
    def table_before
      RubyLLM::ActiveRecord::ChatFile.delete_all
      ActiveRecord::Migration.suppress_messages { digest_migration.migrate(:down) }
      table_changed
    end

    def table_now
      ActiveRecord::Migration.suppress_messages { digest_migration.migrate(:up) }
      table_changed
    end

    # Every connection of the pool forgets the statements it prepared for the table's
    # old columns: PostgreSQL refuses to run them ("cached plan must not change result
    # type"), and a later spec's threads took those connections.
    def table_changed
      RubyLLM::ActiveRecord::ChatFile.reset_column_information
      RubyLLM::ActiveRecord::ChatFile.connection_pool.connections.each(&:clear_cache!)
    end

    it "refuses, naming it, a path past a table made before's index, and keeps it whole after the upgrade" do
      table_before
      path = long_path(4096)
      expect { store.write(path, 'long') }
        .to raise_error(RubyLLM::FileStore::Error, /was not written: its \d+ bytes are more than PostgreSQL's index/)
      # The model reads the error, shortened, naming the path.
      refused = write_file.call(path:, content: 'long')
      expect(refused).to start_with("Error: #{path.inspect[0, 200]}")
      expect(refused).not_to match(/PG::|index row size/)
      shorter = long_path(2000)
      expect(write_file.call(path: shorter, content: 'before')).to start_with('Wrote')

      table_now
      expect(write_file.call(path:, content: 'whole')).to start_with('Wrote')
      store.write(shorter, 'after') # the row made before, found by its digest
      expect(store.list.map(&:path).sort).to eq([path, shorter].sort)
      expect([store.read(path), store.read(shorter)]).to eq(%w[whole after])
    ensure
      table_now
    end
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

    def collate(collation, limit: 4096)
      ActiveRecord::Base.connection.change_column(:ruby_llm_chat_files, :path, :string, null: false, collation:,
                                                                                        limit:)
      RubyLLM::ActiveRecord::ChatFile.reset_column_information
    end

    # The table as this version makes it, from one an example made as before.
    def table_now
      unless ActiveRecord::Base.connection.column_exists?(:ruby_llm_chat_files, :path_digest)
        ActiveRecord::Migration.suppress_messages do
          migration('whole_ruby_llm_chat_file_paths', 'WholeRubyLLMChatFilePaths').migrate(:up)
        end
      end
      collate('utf8mb4_nopad_bin')
    end

    # The table as the generator made it before paths were kept whole: varchar(255),
    # unique over the path itself.
    def table_before
      connection = ActiveRecord::Base.connection
      RubyLLM::ActiveRecord::ChatFile.delete_all
      connection.remove_index(:ruby_llm_chat_files, name: 'index_ruby_llm_chat_files_paths')
      connection.remove_index(:ruby_llm_chat_files, name: 'index_ruby_llm_chat_files_uniqueness')
      connection.remove_column(:ruby_llm_chat_files, :path_digest)
      connection.change_column(:ruby_llm_chat_files, :path, :string, null: false, collation: 'utf8mb4_nopad_bin')
      connection.add_index(:ruby_llm_chat_files, %i[chat_type chat_id owner_key path], unique: true,
                                                                                       name: 'index_ruby_llm_chat_files_uniqueness')
      RubyLLM::ActiveRecord::ChatFile.reset_column_information
    end

    # Runs the block with the pool's connections made as +settings+ say.
    def connected(**settings)
      before = ActiveRecord::Base.connection_db_config.configuration_hash
      ActiveRecord::Base.establish_connection(before.merge(settings))
      yield
    ensure
      ActiveRecord::Base.establish_connection(before)
    end

    it 'refuses, not cuts, a path longer than a column made before holds, until the upgrade migration' do
      table_before
      path = "#{'d' * 200}/#{'e' * 100}.txt"
      connected(strict: false) do
        store.write('short.txt', 'before')
        refused = write_file.call(path:, content: 'long')
        expect(refused).to start_with("Error: #{path.inspect} was not written")
        expect(refused).to include('ruby_llm_file_store:upgrade')
        expect(store.list.map(&:path)).to eq(['short.txt'])

        ActiveRecord::Migration.suppress_messages do
          migration('whole_ruby_llm_chat_file_paths', 'WholeRubyLLMChatFilePaths').migrate(:up)
        end
        RubyLLM::ActiveRecord::ChatFile.reset_column_information
        expect(write_file.call(path:, content: 'whole')).to start_with('Wrote')
        store.write('short.txt', 'after') # the row made before, found by its digest
        expect(store.list.map(&:path)).to eq([path, 'short.txt'])
        expect([store.read(path), store.read('short.txt')]).to eq(%w[whole after])
      end
    ensure
      table_now
    end

    it 'refuses a connection that is not utf8mb4, in the migration and when a store is made' do
      connected(encoding: 'utf8') do
        RubyLLM::ActiveRecord::ChatFile.instance_variable_set(:@require_table, nil)
        expect { RubyLLM.file_store.active_storage(chat) }
          .to raise_error(RubyLLM::ConfigurationError, /needs a utf8mb4 database connection, and this one is utf8/)
        expect { ActiveRecord::Migration.suppress_messages { ChatFilesMigration.migration_class.migrate(:up) } }
          .to raise_error(/needs a utf8mb4 connection.*encoding: utf8mb4/)
      end
    ensure
      RubyLLM::ActiveRecord::ChatFile.instance_variable_set(:@require_table, nil)
    end

    it 'finds paths holding an emoji and U+10FFFF over a utf8mb4 connection' do
      paths = ["\u{1F600}.md", "a/\u{10FFFF}.txt"]
      paths.each { |path| expect(write_file.call(path:, content: path)).to start_with('Wrote') }
      expect(store.list.map(&:path).sort).to eq(paths.sort)
      paths.each { |path| expect(store.read(path)).to eq(path.b) }
    end

    it 'refuses, naming it, a path a padding column takes for another, until the upgrade migration' do
      expect(path_collation).to eq('utf8mb4_nopad_bin')
      # Rows other examples left may differ only by trailing spaces, which the padding
      # column to come would take for one: it starts from an empty table.
      table_before
      collate('utf8mb4_bin', limit: 255)
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
      table_now
    end
  end
end
