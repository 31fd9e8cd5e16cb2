# frozen_string_literal: true

require 'json'
require 'stringio'
require 'tempfile'
require 'tmpdir'

# Writers killed with kill -9 (no ensure runs) at random points leave blob rows of the
# store's that nothing uses and spooled temporary files; one run of
# RubyLLM::ActiveRecord::Tidy removes all of it and nothing a file uses. Another
# application sharing the Disk root or the bucket (its own database) keeps every object
# and temporary file of its own. On SQLite here, on PostgreSQL and MariaDB with S3 in
# bin/test-databases (the storms on the Disk service too).
RSpec.describe 'RubyLLM::ActiveRecord::Tidy', :rails do
  let(:tidy) { RubyLLM::ActiveRecord::Tidy }
  let(:chat) { Chat.create!(model_id: 'gpt-4.1-mini') }
  let(:random) { Random.new(RSpec.configuration.seed) }
  # (The store's classes load with RubyLLM::ActiveRecord::FileStore.)
  let(:upload) { RubyLLM::ActiveRecord::FileStore && RubyLLM::FileStore::RailsStore::Upload }

  # Each example counts what is left over in the whole database and service.
  before { ActiveStorageServers.empty! }

  around do |example|
    Dir.mktmpdir('ruby_llm_file_store_tidy') do |dir|
      before = ENV.fetch('TMPDIR', nil)
      ENV['TMPDIR'] = dir
      example.run
    ensure
      ENV['TMPDIR'] = before
    end
  end

  def own_unattached
    ActiveStorage::Blob.where.not(id: ActiveStorage::Attachment.select(:blob_id))
                       .where('metadata LIKE ?', '%"ruby_llm_file_store":true%')
  end

  def debris
    keys = ActiveStorage::Blob.pluck(:key)
    { unattached: own_unattached.count,
      objects_without_row: (ActiveStorageServers.stored_keys - keys).size,
      temporary_files: Dir[File.join(Dir.tmpdir, 'ruby_llm_chat_file*')].size }
  end

  # A process that writes and deletes until it is killed. (A write inside with_lock,
  # or another transaction, makes its blob's row in that transaction: a process killed
  # before it commits leaves the object with no row, which Tidy does not find.)
  def writer(seed)
    fork do
      rng = Random.new(seed)
      store = RubyLLM.file_store.active_storage(Chat.find(chat.id))
      loop do
        path = "f#{rng.rand(4)}.txt"
        content = ('x' * rng.rand(100_000..400_000)).b
        case rng.rand(3)
        when 0 then store.write(path, content)
        when 1 then store.write(path, StringIO.new(content))
        else store.delete(path)
        end
      end
    rescue Exception # rubocop:disable Lint/RescueException
      exit!(0)
    end
  end

  it 'removes everything 30 rounds of kill -9 leave, and nothing a file uses', :slow do
    30.times do |round|
      pids = Array.new(3) { |i| writer(RSpec.configuration.seed + (round * 3) + i) }
      sleep random.rand(0.05..0.5)
      pids.each do |pid|
        Process.kill(:KILL, pid)
        Process.wait(pid)
      end
    end
    sleep 1.1 # MariaDB keeps whole seconds, and may round created_at up
    left = debris
    warn "kill -9 left: #{left}" if ENV['VERBOSE']
    expect(left[:objects_without_row]).to eq(0)

    removed = tidy.run(older_than: 0)
    expect(removed.values_at(:blobs, :temporary_files)).to eq(left.values_at(:unattached, :temporary_files))
    expect(debris).to eq(unattached: 0, objects_without_row: 0, temporary_files: 0)
    store = RubyLLM.file_store.active_storage(chat)
    store.list.each do |file|
      expect(Digest::SHA256.hexdigest(store.read(file.path))).to eq(file.digest)
    end
  end

  # An upload of the store's whose process was killed after its row and bytes were
  # made, and a spooled upload of a process that has ended.
  def killed_upload
    reader, writer = IO.pipe
    pid = fork do
      reader.close
      upload.new('spooled.txt', StringIO.new('spooled'), nil) # spooled, never closed
      lost = upload.new('lost.txt', 'lost bytes', nil)
      lost.upload!
      writer.puts(lost.uploaded_blob.key)
      writer.flush
      Process.kill(:KILL, Process.pid)
    end
    writer.close
    key = reader.gets.chomp
    Process.wait(pid)
    key
  end

  it 'leaves what is younger than its age' do
    key = killed_upload
    tidy.run(older_than: 60)
    expect([ActiveStorage::Blob.exists?(key:), ActiveStorage::Blob.service.exist?(key),
            Dir[File.join(Dir.tmpdir, 'ruby_llm_chat_file*')].size]).to eq([true, true, 1])
    sleep 1.1 # MariaDB keeps whole seconds, and may round created_at up
    expect(tidy.run(older_than: 0)).to eq(blobs: 1, temporary_files: 1)
    expect([ActiveStorage::Blob.exists?(key:), ActiveStorage::Blob.service.exist?(key),
            Dir[File.join(Dir.tmpdir, 'ruby_llm_chat_file*')].size]).to eq([false, false, 0])
  end

  # Another application on the same service, with a database of its own: a message
  # with a plain Active Storage attachment, a chat file of this gem's store, and a
  # spooled upload of its process, which lives on while this application tidies. It
  # removes them when told to, and says what it still read.
  def other_application(commands, report)
    fork do
      Dir.mktmpdir('ruby_llm_file_store_other_app') do |dir|
        other_database(File.join(dir, 'other.sqlite3'))
        message, store, spool = other_files
        say(report, 'keys' => ActiveStorage::Blob.pluck(:key), 'spool' => spool.path)
        commands.gets
        say(report, 'read' => [message.reload.attachment.download, store.read('notes.md'), File.read(spool.path)])
        message.attachment.purge
        store.delete('notes.md')
        spool.close!
      end
      exit!(0)
    rescue Exception => e # rubocop:disable Lint/RescueException
      say(report, 'error' => "#{e.class}: #{e.message} #{e.backtrace.first(5)}")
      exit!(1)
    end
  end

  def say(report, message)
    report.puts(JSON.generate(message))
    report.flush
  end

  def other_database(file)
    ActiveRecord::Base.establish_connection(adapter: 'sqlite3', database: file)
    [Chat, Message, ActiveStorage::Blob, ActiveStorage::Attachment, RubyLLM::ActiveRecord::ChatFile]
      .each(&:reset_column_information)
    ActiveStorageDB.create_active_storage_tables
    RailsModels.create_tables
    ActiveRecord::Migration.run(ChatFilesMigration.migration_class)
  end

  def other_files
    other_chat = Chat.create!(model_id: 'gpt-4.1-mini')
    message = other_chat.messages.create!(content: 'my avatar')
    message.attachment.attach(io: StringIO.new('avatar bytes'), filename: 'avatar.png')
    store = RubyLLM.file_store.active_storage(other_chat)
    store.write('notes.md', 'other notes')
    spool = Tempfile.new('ruby_llm_chat_file')
    spool.write('being uploaded')
    spool.flush
    [message, store, spool]
  end

  it 'removes only what this application made, on a Disk root or bucket another one shares', :slow do
    store = RubyLLM.file_store.active_storage(chat)
    store.write('kept.md', 'kept')
    # An upload the application has not attached yet (a direct upload): not the store's.
    pending = ActiveStorage::Blob.create_and_upload!(io: StringIO.new('direct upload'), filename: 'later.png')
    lost = killed_upload
    commands_reader, commands = IO.pipe
    report_reader, report = IO.pipe
    pid = other_application(commands_reader, report)
    commands_reader.close
    report.close
    other = JSON.parse(report_reader.gets)
    raise other['error'] if other['error']

    sleep 1.1 # MariaDB and S3 keep whole seconds
    ActiveStorageServers.settle
    removed = tidy.run(older_than: 0)
    service = ActiveStorage::Blob.service
    expect(other['keys'].size).to eq(2)
    expect(other['keys'].map { |key| service.exist?(key) }).to eq([true, true])
    expect(File.exist?(other['spool'])).to be(true)
    commands.puts('read')
    expect(JSON.parse(report_reader.gets)).to eq('read' => ['avatar bytes', 'other notes', 'being uploaded'])
    expect(Process.wait2(pid).last.exitstatus).to eq(0)
    pid = nil

    expect(removed).to eq(blobs: 1, temporary_files: 1)
    expect([ActiveStorage::Blob.exists?(key: lost), service.exist?(lost)]).to eq([false, false])
    expect([ActiveStorage::Blob.exists?(pending.id), service.exist?(pending.key)]).to eq([true, true])
    expect(store.read('kept.md')).to eq('kept')
    pending.purge
  ensure
    if pid
      Process.kill(:KILL, pid)
      Process.wait(pid)
    end
  end

  # Storms of interrupts into 6 threads sharing a pool of 5 connections, in a child
  # process: Timeout.timeout (its own error or the application's) or Thread#raise
  # with the application's error, landing anywhere in writes, deletes and with_lock
  # edits of two chats. A minute each where bin/test-databases runs them, on S3 and on
  # the Disk service (tagged :storm, the examples it runs on Disk).
  describe 'after storms of interrupts', :storm do
    let(:chats) { Array.new(2) { Chat.create!(model_id: 'gpt-4.1-mini') } }
    let(:seconds) { InterruptStorm.seconds(8) }
    let(:contents) { Array.new(3) { |i| ("#{i}\n" * 40_000).b } }

    def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)

    def call_store(store, rng)
      path = %w[a.txt b/c.txt d.txt].sample(random: rng)
      content = contents.sample(random: rng)
      case rng.rand(4)
      when 0 then store.write(path, content)
      when 1 then store.write(path, StringIO.new(content))
      when 2 then store.delete(path)
      else store.with_lock { store.write(path, "#{store.read(path)[0, 10]}#{content}") if store.exist?(path) }
      end
    end

    def interrupted(kind, delay, rng, &)
      if kind == :timeout
        Timeout.timeout(delay, rng.rand(2).zero? ? nil : InterruptStorm::AppError, &)
      else
        InterruptStorm.raised_into(delay, &)
      end
    rescue Timeout::Error, InterruptStorm::AppError
      nil
    end

    # Runs the storm; returns how many calls finished and the errors that were not
    # the interrupt's.
    def storm(kind)
      ActiveRecord::Base.establish_connection(ActiveRecord::Base.connection_db_config.configuration_hash.merge(pool: 5))
      stores = chats.map { |chat| RubyLLM.file_store.active_storage(Chat.find(chat.id)) }
      longest = call_time(stores) * 1.5
      found = { 'done' => 0, 'errors' => Hash.new(0), 'until' => now + seconds }
      Array.new(6) do |t|
        Thread.new(Random.new(RSpec.configuration.seed + t)) { |rng| storm_thread(kind, stores, rng, longest, found) }
      end.each(&:join)
      found.except('until')
    end

    def call_time(stores)
      started = now
      20.times { |i| call_store(stores[i % 2], Random.new(i)) }
      (now - started) / 20
    end

    def storm_thread(kind, stores, rng, longest, found)
      while now < found['until']
        begin
          interrupted(kind, rng.rand(0.0..longest), rng) do
            call_store(stores.sample(random: rng), rng)
            found['done'] += 1
          end
        rescue StandardError => e
          found['errors'][e.class.name] += 1 unless InterruptStorm.interrupt?(e)
        end
      end
    end

    # A storm still running 4 minutes past its end has its threads' backtraces written
    # to +dump+ and is given 4 more: one that then ends is slow, and says so on stderr;
    # one that does not is stuck, and the failure shows where.
    def storm_in_child(kind)
      reader, writer = IO.pipe
      dump = File.join(Dir.tmpdir, 'storm_threads.txt')
      pid = fork do
        reader.close
        Signal.trap('USR1') { File.write(dump, StormThreads.backtraces) }
        writer.puts(JSON.generate(storm(kind)))
        writer.flush
        exit!(0)
      rescue Exception => e # rubocop:disable Lint/RescueException
        writer.puts(JSON.generate('error' => StormThreads.failure(e)))
        exit!(1)
      end
      writer.close
      found = StormThreads.answer(reader, pid, seconds + 240, dump)
      Process.kill(:KILL, pid) unless found
      Process.wait(pid)
      JSON.parse(found || JSON.generate('error' => "the storm did not end:\n#{StormThreads.read(dump)}"))
    end

    %i[timeout raise].each do |kind|
      it "leaves no stored object without its blob row after a storm of #{kind}", :slow do
        chats.each { |chat| RubyLLM.file_store.active_storage(chat).write('a.txt', contents[0]) }
        found = storm_in_child(kind)
        raise found['error'] if found['error']

        warn "#{kind} storm: #{found}, then #{debris}" if ENV['VERBOSE']
        expect(found['done']).to be_positive
        expect(debris[:objects_without_row]).to eq(0)
        sleep 1.1 # MariaDB and S3 keep whole seconds
        ActiveStorageServers.settle
        tidy.run(older_than: 0)
        expect(debris).to eq(unattached: 0, objects_without_row: 0, temporary_files: 0)
        chats.each do |chat|
          store = RubyLLM.file_store.active_storage(chat)
          store.list.each { |file| expect(Digest::SHA256.hexdigest(store.read(file.path))).to eq(file.digest) }
        end
      end
    end
  end
end
