# frozen_string_literal: true

require 'timeout'

# Writes stopped at random points by Timeout.timeout (a throw on Ruby 3.1) and
# Thread#kill, which no `rescue StandardError` sees: the old content stays whole, and
# nothing is left behind, neither a blob row no file uses nor bytes on the service
# without a row. On SQLite here, on PostgreSQL and MariaDB with S3 in bin/test-databases.
RSpec.describe 'RubyLLM::ActiveRecord::FileStore writes interrupted', :rails do
  let(:chat) { Chat.create!(model_id: 'gpt-4.1-mini') }
  let(:store) { RubyLLM.file_store.active_storage(chat) }
  let(:random) { Random.new(RSpec.configuration.seed) }
  let(:size) { 512 * 1024 }

  # Blob rows no attachment uses, objects on the service with no row, rows whose
  # object is gone. On S3 once Tidy has run: an upload stopped in flight leaves its
  # row for Tidy, since the server may still store its bytes.
  def debris
    if ActiveStorageServers.s3_endpoint
      ActiveStorageServers.settle # also past the whole second MariaDB keeps
      RubyLLM::ActiveRecord::Tidy.run(older_than: 0)
    end
    keys = ActiveStorage::Blob.pluck(:key)
    stored = ActiveStorageServers.stored_keys
    { unattached: ActiveStorage::Blob.where.not(id: ActiveStorage::Attachment.select(:blob_id)).count,
      objects_without_row: (stored - keys).size, rows_without_object: (keys - stored).size }
  end

  def content(round) = (('a'..'z').to_a[round % 26] * size).b

  # How long one write takes here, to interrupt writes anywhere from start to end.
  def write_time
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    store.write('probe.txt', content(25))
    Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
  ensure
    store.delete('probe.txt')
  end

  def interrupt(how, delay, &block)
    case how
    when :timeout
      begin
        Timeout.timeout(delay, &block)
      rescue Timeout::Error
        nil
      end
    when :kill
      thread = Thread.new(&block)
      sleep delay
      thread.kill
      begin
        thread.join
      rescue ActiveRecord::StatementInvalid => e
        # mysql2 and Rails: the rollback the kill runs on the connection it cut off
        # mid-query raises, and an error raised while a thread is killed takes the
        # kill's place (the store throws that connection away). What the write left
        # is checked as after any kill.
        raise unless e.message.include?('still waiting for a result')
      end
    end
  end

  def expect_whole(path, *versions)
    expect(versions.map { |round| content(round) }).to include(store.read(path))
    expect(store[path].digest).to eq(Digest::SHA256.hexdigest(store.read(path)))
  end

  %i[timeout kill].each do |how|
    it "keeps the old content whole and leaves no debris when #{how} stops writes at random points" do
      store.write('doc.txt', content(0))
      before = debris
      longest = write_time * 1.3
      current = 0
      1.upto(16) do |round|
        interrupt(how, random.rand(0.0..longest)) { store.write('doc.txt', content(round)) }
        expect_whole('doc.txt', current, round)
        current = round if store.read('doc.txt') == content(round)
      end
      expect(debris).to eq(before)
    end

    it "rolls a with_lock block back when #{how} stops it: both files old, or both new" do
      store.write('a.txt', content(0))
      store.write('b.txt', content(0))
      before = debris
      longest = write_time * 2.6
      current = 0
      1.upto(10) do |round|
        interrupt(how, random.rand(0.0..longest)) do
          store.with_lock do
            store.write('a.txt', content(round))
            store.write('b.txt', content(round))
          end
        end
        expect_whole('a.txt', current, round)
        expect(store.read('b.txt')).to eq(store.read('a.txt'))
        current = round if store.read('a.txt') == content(round)
      end
      expect(debris).to eq(before)
    end
  end

  # A seeded random mix on one chat: threads writing, deleting, deleting folders and
  # doing with_lock edits, each step stopped at random by Timeout or Thread#kill.
  it 'leaves every file whole and no debris after a random mix of changes, some stopped' do
    paths = %w[a/1.txt a/2.txt b/1.txt]
    # Each path run once first, so no interrupt lands in a file's first require.
    write_time
    store.write('a/1.txt', content(0))
    store.delete_folder('a')
    before = debris
    threads = Array.new(3) do |t|
      Thread.new(Random.new(RSpec.configuration.seed + t)) do |rng|
        24.times do |i|
          path = paths.sample(random: rng)
          change = proc do
            case rng.rand(4)
            when 0 then store.write(path, content(i))
            when 1 then store.delete(path)
            when 2 then store.delete_folder(File.dirname(path))
            else store.with_lock { store.write(path, content(i + 1)) if store.exist?(path) }
            end
          rescue ArgumentError, RubyLLM::FileNotFoundError
            nil
          end
          rng.rand(3).zero? ? change.call : interrupt(%i[timeout kill].sample(random: rng), rng.rand(0.0..0.2), &change)
        end
      end
    end
    threads.each(&:join)
    store.list.each { |file| expect([store.read(file.path).squeeze.size, file.byte_size]).to eq([1, size]) }
    expect(debris).to eq(before)
  end

  it 'rolls a with_lock block back when a throw leaves it, as Timeout does on Ruby 3.1' do
    store.write('kept.txt', content(0))
    before = debris
    catch(:out) do
      store.with_lock do
        store.write('kept.txt', content(1))
        store.write('late.txt', content(2))
        throw :out
      end
    end
    expect(store.read('kept.txt')).to eq(content(0))
    expect(store.exist?('late.txt')).to be(false)
    expect(debris).to eq(before)
  end

  it 'commits a with_lock block that returns, nested or not' do
    expect(store.with_lock { store.with_lock { store.write('n.txt', 'nested').path } }).to eq('n.txt')
    expect(store.read('n.txt')).to eq('nested')
  end

  # Timeout's interrupt can land while a COMMIT is on its way (Rails lets it in
  # there): the server commits, and the transaction must not then be rolled back in
  # Rails, whose rollback callbacks would purge the blobs the committed rows use.
  if ENV['RUBY_LLM_FILE_STORE_DATABASE_URL'].to_s.start_with?('postgres')
    it 'waits for a COMMIT left in flight before saying whether a transaction is open' do
      store # loads the Active Storage store
      RubyLLM::ActiveRecord::ChatFile.connection_pool.with_connection do |connection|
        raw = connection.raw_connection
        raw.exec('BEGIN')
        raw.exec('CREATE TEMPORARY TABLE in_flight_probe (id integer)')
        raw.send_query('COMMIT')
        expect(raw.transaction_status).to eq(PG::PQTRANS_ACTIVE)
        expect(RubyLLM::FileStore::RailsStore::Atomically.open_in_database?(connection)).to be(false)
        expect(raw.exec('SELECT count(*) FROM in_flight_probe').getvalue(0, 0).to_i).to eq(0)
      ensure
        raw.exec('DROP TABLE IF EXISTS in_flight_probe')
      end
    end
  end
end
