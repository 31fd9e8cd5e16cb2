# frozen_string_literal: true

require 'json'
require 'stringio'
require 'tmpdir'

# The Active Storage store's locks, transactions and connections under the interrupts a
# server delivers all day: thousands of calls to with_lock, write_file, edit_file and
# delete on two chats, stopped at random points by Timeout.timeout, Thread#raise with an
# application's StandardError and Thread#kill, in threads that live on. The storm runs
# in a child process, so one that froze (a SQLite connection's mutex left locked) fails
# here instead of hanging the suite. Afterwards another thread of that process and
# another process take each chat's lock within a second, the pool hands out every one of
# its connections and each answers, and the process exits. On SQLite here, on
# PostgreSQL and MariaDB with S3 in bin/test-databases.
RSpec.describe 'RubyLLM::ActiveRecord::FileStore locks interrupted', :rails do
  let(:chats) { Array.new(2) { Chat.create!(model_id: 'gpt-4.1-mini') } }
  let(:tools) { RubyLLM::FileStore::Tools }
  let(:contents) { Array.new(4) { |i| ("#{i}\n" * 2_000).b } }
  let(:paths) { %w[a.txt b/c.txt] }
  let(:storm) { 2000 }

  # Spooled uploads go to a folder of this example's, so the tidy below (on S3) sees
  # only its own temporary files.
  around do |example|
    Dir.mktmpdir('ruby_llm_file_store_storm') do |dir|
      before = ENV.fetch('TMPDIR', nil)
      ENV['TMPDIR'] = dir
      example.run
    ensure
      ENV['TMPDIR'] = before
    end
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
    20.times { |i| call_store(stores[i % 2], Random.new(i)) }
    (Process.clock_gettime(Process::CLOCK_MONOTONIC) - started) / 20
  end

  # Blob rows no attachment uses, and objects on the service with no row.
  def debris
    keys = ActiveStorage::Blob.pluck(:key)
    { unattached: ActiveStorage::Blob.where.not(id: ActiveStorage::Attachment.select(:blob_id)).count,
      objects_without_row: (ActiveStorageServers.stored_keys - keys).size }
  end

  # The debris left; on S3, once the tidy job has run. An upload stopped mid-request
  # can still be finished by the S3 server after the store deleted its key (the request
  # was sent whole): that object is the tidy job's to remove, and is removed here too so
  # the specs after this one start from an empty bucket.
  def debris_after_tidy
    return debris unless ActiveStorageServers.s3_endpoint

    ActiveStorageServers.settle # also past the whole second the database keeps
    left = debris
    removed = RubyLLM::ActiveRecord::Tidy.run(older_than: 0)
    warn "objects an interrupted upload left on S3: #{left[:objects_without_row]}, tidied: #{removed}" if ENV['VERBOSE']
    debris
  end

  # What the storm's process finds once it is over: how many connections living threads
  # hold, and, from a thread that did not take part, each chat's lock taken within a
  # second and every connection of the pool checked out, each answering a query.
  def after_the_storm(stores)
    pool = RubyLLM::ActiveRecord::ChatFile.connection_pool
    pool.release_connection
    busy = held_by_living_threads(pool)
    Thread.new do
      taken = stores.map { |store| Timeout.timeout(1) { store.with_lock { :taken } } }
      { 'busy' => busy, 'taken' => taken.map(&:to_s), 'size' => pool.size, 'answers' => answers(pool) }
    end.value
  end

  # How many of the pool's connections, all checked out at once, answer a query; when
  # one cannot be checked out, which threads the pool lends its connections to.
  def answers(pool)
    connections = []
    pool.size.times { connections << pool.checkout(1) }
    Timeout.timeout(5) { connections.sum { |connection| connection.select_value('SELECT 1').to_i } }
  rescue ActiveRecord::ConnectionTimeoutError
    pool.connections.map { |c| "#{c.owner.inspect} #{c.owner&.status.inspect} mine: #{connections.include?(c)}" }
  ensure
    connections.each { |connection| pool.checkin(connection) }
  end

  # Connections the pool has lent to threads that still run. Those of threads that ended
  # (killed) it takes back itself when it runs short.
  def held_by_living_threads(pool)
    pool.connections.count { |connection| connection.in_use? && connection.owner&.alive? }
  end

  # Another process that keeps taking the chats' locks for a few milliseconds at a
  # time, so the storm's calls also wait in the database: on SQLite for its write lock
  # (in SQLite's busy handler), elsewhere for the chat's row. It leaves the database
  # free a moment between holds, as a job does between its steps: SQLite keeps no
  # queue, and a rival that took its lock back the instant it let go would starve
  # every other writer of it whatever the store did (under a loaded machine, for
  # minutes), which is not what this storm measures.
  def rival
    fork do
      stores = chats.map { |chat| store_of(chat) }
      rng = Random.new(RSpec.configuration.seed)
      loop do
        stores.sample(random: rng).with_lock { sleep(rng.rand(0.002..0.02)) }
        sleep(rng.rand(0.001..0.005))
      end
    rescue Exception # rubocop:disable Lint/RescueException
      exit!(0)
    end
  end

  # Asked by the parent when the storm does not end: where each thread is, and whom
  # the pool lends its connections (from a thread: the pool's lock is not for a trap).
  def where_threads_are
    Thread.list.each { |thread| warn "#{thread.inspect}\n#{thread.backtrace&.first(40)&.join("\n")}" }
    pool = RubyLLM::ActiveRecord::ChatFile.connection_pool
    Thread.new { warn "pool of #{pool.size}, lent to: #{pool.connections.map { |c| c.owner.inspect }.inspect}" }
  end

  # Runs the storm in a child; returns its report, with the child still running.
  def storm_in_child(report, go_ahead)
    fork do
      trap('TTIN') { where_threads_are }
      stores = chats.map { |chat| store_of(chat) }
      longest = call_time(stores) * 1.5
      sent = InterruptStorm.run(count: storm, workers: 6, longest:, seed: RSpec.configuration.seed) do |rng|
        call_store(stores.sample(random: rng), rng)
      end
      report.puts(JSON.generate(after_the_storm(stores).merge('sent' => sent)))
      report.flush
      go_ahead.gets
      exit!(0)
    rescue Exception => e # rubocop:disable Lint/RescueException
      report.puts(JSON.generate('error' => "#{e.class}: #{e.message}", 'at' => e.backtrace.first(60)))
      exit!(1)
    end
  end

  it 'leaves no lock held, no connection taken and no process frozen after 2,000 interrupted calls', :slow do
    chats.each { |chat| store_of(chat).write('a.txt', contents[0]) }
    before = debris_after_tidy
    report_reader, report = IO.pipe
    go, go_writer = IO.pipe
    rival_pid = rival
    pid = storm_in_child(report, go)
    report.close
    go.close
    unless report_reader.wait_readable(240)
      Process.kill(:TTIN, pid)
      sleep 2
      raise 'the storm process froze'
    end
    Process.kill(:TERM, rival_pid)
    Process.wait(rival_pid)
    rival_pid = nil
    found = JSON.parse(report_reader.gets)
    expect(found).to include('busy' => 0, 'taken' => %w[taken taken])
    expect(found['answers']).to eq(found['size'])
    expect(found['sent'].values.sum).to eq(storm)
    # Another process, while the storm's threads live on.
    chats.each { |chat| expect(Timeout.timeout(1) { store_of(chat).with_lock { :taken } }).to eq(:taken) }
    go_writer.puts('exit')
    expect(Timeout.timeout(10) { Process.wait2(pid).last.exitstatus }).to eq(0)
    pid = nil
    expect(debris_after_tidy).to eq(before)
  ensure
    [pid, rival_pid].compact.each do |child|
      Process.kill(:KILL, child)
      Process.wait(child)
    end
  end
end
