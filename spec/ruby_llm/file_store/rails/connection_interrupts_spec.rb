# frozen_string_literal: true

require 'json'
require 'stringio'
require 'tmpdir'
require 'uri'

# Active Record's own machinery under the interrupts an application sends into threads
# that live on: Thread#raise with its own StandardError (as Rack::Timeout raises) and
# Timeout.timeout with such an error class, which Rails 6.1 lets in again inside its
# connection's lock. Twelve storms on two chats, six threads on a pool of five: after
# each, the process holds no more database connections than its pool (SQLite: handles
# on the database file; PostgreSQL and MariaDB: sockets to the server), without
# GC.start, and another process still writes; after the twelve, every stored object
# has its blob row. A connection dropped halfway (out of the pool but never closed)
# would stay open until the process exits, on SQLite inside a write transaction that
# fails every other writer. On SQLite here, on PostgreSQL and MariaDB with the S3 and
# the Disk service in bin/test-databases.
RSpec.describe 'RubyLLM::ActiveRecord::FileStore connections interrupted', :rails do
  let(:chats) { Array.new(2) { Chat.create!(model_id: 'gpt-4.1-mini') } }
  let(:tools) { RubyLLM::FileStore::Tools }
  let(:contents) { Array.new(4) { |i| ("#{i}\n" * 2_000).b } }
  let(:paths) { %w[a.txt b/c.txt] }
  let(:storms) { 12 }
  # Seconds a storm: the 12 share 12 s, and a minute where bin/test-databases runs them.
  let(:seconds) { InterruptStorm.seconds(12) / storms }

  # Spooled uploads go to a folder of this example's.
  around do |example|
    Dir.mktmpdir('ruby_llm_file_store_storm') do |dir|
      before = ENV.fetch('TMPDIR', nil)
      ENV['TMPDIR'] = dir
      example.run
    ensure
      ENV['TMPDIR'] = before
    end
  end

  # An object a failing run left without its row is removed once the example has
  # counted it, so the specs after this one do not count it again.
  after do
    ActiveStorageServers.settle
    ActiveStorageServers.objects_without_row.each { |key| ActiveStorage::Blob.service.delete(key) }
  end

  def store_of(chat) = RubyLLM.file_store.active_storage(Chat.find(chat.id))

  # One call, chosen by +rng+, as a tool or the application makes it.
  def call_store(store, rng)
    path = paths.sample(random: rng)
    content = contents.sample(random: rng)
    case rng.rand(5)
    when 0 then store.with_lock { store.write(path, "#{store.read(path)[0, 10]}#{content}") if store.exist?(path) }
    when 1 then tools::WriteFile.new(store).call(path:, content:)
    when 2 then store.write(path, StringIO.new(content))
    when 3
      tools::ReadFile.new(store).call(path:)
      tools::EditFile.new(store).call(path:, old_text: "1\n", new_text: "one\n", replace_all: true)
    else store.delete(path)
    end
  end

  def call_time(stores)
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    10.times { |i| call_store(stores[i % 2], Random.new(i)) }
    (Process.clock_gettime(Process::CLOCK_MONOTONIC) - started) / 10
  end

  def config = ActiveRecord::Base.connection_db_config.configuration_hash

  def sqlite? = config[:adapter].to_s.include?('sqlite')

  # The database connections this process holds open: on SQLite its SQLite3::Database
  # objects of the database not closed (SQLite keeps a closed connection's descriptor
  # for reuse while others of the process hold locks, so descriptors tell nothing),
  # unreachable ones included, as no GC.start runs; elsewhere its TCP sockets to the
  # server's port, as the server counts its backends.
  def open_connections
    if sqlite?
      path = File.realpath(config[:database])
      return ObjectSpace.each_object(SQLite3::Database).count { |db| !db.closed? && db.filename == path }
    end

    sockets = Dir.children('/proc/self/fd').filter_map do |fd|
      File.readlink("/proc/self/fd/#{fd}")[/\Asocket:\[(\d+)\]\z/, 1]
    rescue SystemCallError
      nil
    end
    (server_sockets & sockets).size
  end

  # The inodes of this process's TCP sockets connected to the database server's port.
  def server_sockets
    port = format('%04X', URI(ActiveStorageServers.url).port)
    %w[/proc/self/net/tcp /proc/self/net/tcp6].flat_map do |table|
      File.readlines(table).drop(1).filter_map do |line|
        fields = line.split
        fields[9] if fields[2].end_with?(":#{port}") && fields[3] == '01'
      end
    end
  end

  # How many connections the pool knows and how many are open, as each storm leaves
  # them, and whether another thread then writes.
  def after_storm(pool, stores)
    pool.release_connection
    written = Thread.new do
      Timeout.timeout(10) { stores.first.write('after.txt', 'written').path }
    rescue StandardError => e # a connection left inside a write transaction: "database is locked"
      "#{e.class}: #{e.message}"
    end.value
    { 'open' => open_connections, 'pooled' => pool.connections.size, 'size' => pool.size, 'written' => written,
      'lent_to_living' => pool.connections.count { |c| c.in_use? && c.owner&.alive? },
      'begun_inside' => begun_inside }
  end

  # How many times so far PostgreSQL warned that a BEGIN came inside a transaction
  # already open: a connection lent on while the database held a transaction Rails had
  # no note of, its next user's work joining the abandoned one. libpq prints its
  # warnings to the process's standard error, which the child sends to a file of its own.
  def begun_inside
    return 0 unless @warnings

    File.foreach(@warnings).count { |line| line.include?('there is already a transaction in progress') }
  end

  # The storms, on a pool of five: one line of JSON each.
  def run_storms(report)
    ActiveRecord::Base.establish_connection(config.merge(pool: 5))
    pool = RubyLLM::ActiveRecord::ChatFile.connection_pool
    stores = chats.map { |chat| store_of(chat) }
    longest = call_time(stores) * 1.5
    storms.times do |storm|
      sent = InterruptStorm.run(seconds:, workers: 6, longest:, seed: RSpec.configuration.seed + storm,
                                kinds: %i[raise app_timeout timeout]) do |rng|
        call_store(stores.sample(random: rng), rng)
      end
      report.puts(JSON.generate(after_storm(pool, stores).merge('sent' => sent)))
      report.flush
    end
  end

  # Runs the storms in a child, which waits to exit until told.
  def storms_in_child(report, go_ahead)
    fork do
      @warnings = File.join(ENV.fetch('TMPDIR'), 'storm_stderr.log')
      $stderr.reopen(@warnings, 'a')
      run_storms(report)
      go_ahead.gets
      exit!(0)
    rescue Exception => e # rubocop:disable Lint/RescueException
      report.puts(JSON.generate('error' => "#{e.class}: #{e.message}", 'at' => where_from(e)))
      exit!(1)
    end
  end

  # Where +error+ was raised: its first frames, then the store's and the spec's own,
  # which Active Record's dozens of frames would otherwise push out of the report.
  def where_from(error)
    frames = error.backtrace.to_a
    (frames.first(8) + frames.drop(8).grep(%r{/(lib|spec)/(ruby_llm|support)/})).first(60)
  end

  it 'holds no more connections than its pool after 12 storms of Thread#raise and Timeout with an app error, ' \
     'and leaves no stored object without its blob row', :slow, :storm do
    chats.each { |chat| store_of(chat).write('a.txt', contents[0]) }
    strays_before = ActiveStorageServers.objects_without_row
    # Nothing inherited: the child's descriptors are its own connections.
    ActiveRecord::Base.connection_pool.disconnect!
    report_reader, report = IO.pipe
    go, go_writer = IO.pipe
    pid = storms_in_child(report, go)
    report.close
    go.close
    found = Array.new(storms) do
      raise "a storm did not end within #{seconds + 240} s" unless report_reader.wait_readable(seconds + 240)

      JSON.parse(report_reader.gets).tap { |line| raise line.inspect if line['error'] }
    end
    warn "storms: #{found.map { |f| f.values_at('open', 'pooled') }.inspect}" if ENV['VERBOSE']
    expect(found.map { |storm| storm['open'] <= storm['pooled'] && storm['pooled'] <= storm['size'] })
      .to all(be(true)), found.inspect
    expect(found.map { |storm| storm.values_at('written', 'lent_to_living') }).to all(eq(['after.txt', 0]))
    expect(found.last['begun_inside']).to eq(0)
    # Another process writes while the storms' process lives on.
    expect(Timeout.timeout(10) { store_of(chats.last).write('other.txt', 'other process').path }).to eq('other.txt')
    go_writer.puts('exit')
    expect(Timeout.timeout(10) { Process.wait2(pid).last.exitstatus }).to eq(0)
    pid = nil
    # A write the storms stopped took back what it uploaded: every object on the
    # service has its blob row (on S3 once the server has stored what it was sent).
    ActiveStorageServers.settle
    expect(ActiveStorageServers.objects_without_row - strays_before).to eq([])
  ensure
    if pid
      Process.kill(:KILL, pid)
      Process.wait(pid)
    end
  end
end
