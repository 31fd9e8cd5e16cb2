# frozen_string_literal: true

# What production runs on: several app server processes, each with threads, on one
# chat. Runs on SQLite in the plain suite and on PostgreSQL, MariaDB and an S3 bucket
# under bin/test-databases (ActiveStorageServers).
RSpec.describe 'RubyLLM::ActiveRecord::FileStore on the application database and service', :rails do
  # Each example counts what is left over in the whole database and bucket.
  before { ActiveStorageServers.empty! }

  let!(:chat) { Chat.create!(model_id: 'gpt-4.1-mini') }
  let(:files) { RubyLLM::ActiveRecord::ChatFile }

  def orphan_blobs
    ActiveStorage::Blob.where.not(id: ActiveStorage::Attachment.select(:blob_id)).count
  end

  # Objects on the service that no blob row names.
  def orphan_objects = ActiveStorageServers.objects_without_row

  it 'keeps paths that differ only by case or Unicode normalisation apart' do
    store = RubyLLM.file_store.active_storage(chat)
    paths = ['Notes.md', 'notes.md', "caf\u00e9.md", "cafe\u0301.md"]
    paths.each { |path| store.write(path, path) }
    expect(store.list.map(&:path)).to match_array(paths)
    paths.each { |path| expect(store.read(path)).to eq(path.b) }
    expect(files.where(chat_id: chat.id).count).to eq(4)
  end

  # A folder's files are a range of the paths' index only when paths sort byte for
  # byte; otherwise each write's folder check reads every file of the chat. On
  # PostgreSQL, where paths are unique by digest, that index holds their first 600
  # characters, which the store's folder query looks in.
  it "finds a folder through the paths' index: the generator gives paths a byte-order collation" do
    connection = files.connection
    collation = files.columns_hash['path'].collation
    case connection.adapter_name
    when /postg/i
      expect(collation).to eq('C')
      # A chat of 2,000 files, 10 of them in the folder: the planner, which takes
      # any index for a table of a few rows, then has the range to choose.
      now = Time.now
      rows = Array.new(2000) do |i|
        path = i < 10 ? "reports/#{i}.md" : "notes/#{i}.md"
        { chat_type: 'Chat', chat_id: chat.id, owner_key: '', path:, path_digest: Digest::SHA256.hexdigest(path),
          byte_size: 0, created_at: now, updated_at: now }
      end
      files.insert_all(rows)
      connection.execute('ANALYZE ruby_llm_chat_files')
      RubyLLM.file_store.active_storage(chat) # loads the store's classes
      view = RubyLLM::FileStore::RailsStore::View.new(chat, [''])
      sql = view.scope.where(view.inside('reports/')).to_sql
      plan = connection.select_values("EXPLAIN #{sql}").join("\n")
      expect(plan).to include('index_ruby_llm_chat_files_paths').and include("600) >= 'reports/'")
      expect(view.rows('reports/').map(&:path)).to match_array(Array.new(10) { |i| "reports/#{i}.md" })
    # Binary and not padding: "a.txt " is not "a.txt" (paths_spec.rb).
    when /mysql/i then expect(collation).to eq(connection.mariadb? ? 'utf8mb4_nopad_bin' : 'utf8mb4_0900_bin')
    else expect(collation).to be_nil # SQLite's default, BINARY
    end
  ensure
    files.where(chat_type: 'Chat', chat_id: chat.id).delete_all
  end

  it 'leaves no orphan blob or stored object after failed and rolled-back writes and chat.destroy' do
    store = RubyLLM.file_store.active_storage(chat, owner: User.create!(name: 'Dana'))
    store.write('keep.txt', 'kept')
    store.write('dir/x.md', 'x')
    expect { store.write('dir', 'clash') }.to raise_error(ArgumentError)
    expect do
      store.with_lock do
        store.write('rolled-back.txt', 'gone')
        raise 'undo'
      end
    end.to raise_error('undo')
    store.write('keep.txt', 'replaced')
    expect(store['rolled-back.txt']).to be_nil
    expect([orphan_blobs, orphan_objects]).to eq([0, []])

    chat.destroy
    expect(files.where(chat_id: chat.id).count).to eq(0)
    expect([orphan_blobs, orphan_objects]).to eq([0, []])
  end

  it 'counts exactly with 3 processes x 4 threads writing, deleting and incrementing one chat', :slow do
    RubyLLM.file_store.active_storage(chat).write('counter.txt', '0')
    processes = 3
    threads = 4
    rounds = 6
    pids = Array.new(processes) do |p|
      fork do
        ActiveRecord::Base.connection_pool.disconnect!
        workers = Array.new(threads) do |t|
          Thread.new do
            store = RubyLLM.file_store.active_storage(Chat.find(chat.id))
            rounds.times do |i|
              store.write("p#{p}/t#{t}/#{i}.txt", "#{p} #{t} #{i}")
              store.write("p#{p}/t#{t}/gone-#{i}.txt", 'soon deleted')
              store.delete("p#{p}/t#{t}/gone-#{i}.txt")
              store.with_lock do
                value = Integer(store.read('counter.txt'))
                store.write('counter.txt', (value + 1).to_s)
              end
            end
          end
        end
        workers.each(&:join)
        exit!(0)
      rescue Exception => e # rubocop:disable Lint/RescueException
        warn "process #{p}: #{e.class}: #{e.message}\n#{e.backtrace.first(8).join("\n")}"
        exit!(1)
      end
    end
    expect(pids.map { |pid| Process.wait2(pid).last.exitstatus }).to all(eq(0))

    ActiveRecord::Base.connection_pool.disconnect!
    store = RubyLLM.file_store.active_storage(chat)
    expect(store.read('counter.txt')).to eq((processes * threads * rounds).to_s)
    expect(store.list.size).to eq((processes * threads * rounds) + 1)
    expect(files.where(chat_id: chat.id).group(:owner_key, :path).having('COUNT(*) > 1').count).to be_empty
    expect([orphan_blobs, orphan_objects]).to eq([0, []])
  end
end
