# frozen_string_literal: true

require 'json'

# A chat's files changed by jobs in two processes, each job inside the application's own
# ActiveRecord::Base.transaction that reads before the store writes (as a job that
# loads its records first does). On SQLite such a transaction holds a snapshot, and once
# another connection has written since, SQLite refuses its first write at once
# ("database is locked"): no wait can help. Each change either is made or is refused
# with the store's LockError, which write_file hands the model as an Error: that says
# so, and which the store's own write and delete raise naming the path; never a raw
# database error, and nothing of a refused change left. docs/rails.md states the rates
# measured here.
RSpec.describe 'RubyLLM::ActiveRecord::FileStore on SQLite, written by jobs in transactions', :rails, :slow do
  let(:chat) { Chat.create!(model_id: 'gpt-4.1-mini') }
  let(:store) { RubyLLM.file_store.active_storage(chat) }

  before do
    skip 'SQLite only: PostgreSQL and MariaDB wait for the row lock' if ActiveStorageServers.url
  end

  # What a job of +kind+ does with the chat's store at +path+; 'made' when the change
  # was made.
  def change(kind, store, path)
    case kind
    when 'write_file' then write_file(store, path)
    when 'write' then store.write(path, path) && 'made'
    when 'delete' then store.delete(path) ? 'made' : 'nothing to delete'
    end
  end

  def write_file(store, path)
    answer = RubyLLM::FileStore::Tools::WriteFile.new(store).call(path:, content: path)
    return 'made' if answer.start_with?('Wrote')
    return 'refused' if answer.match?(/\AError: another task is changing Chat \d+'s files/)

    answer
  end

  # One job: the application's transaction, a read, then the change of +kind+ at +path+.
  # A LockError naming the chat and +path+ is a refusal.
  def job(kind, path)
    ActiveRecord::Base.transaction do
      Chat.find(chat.id)
      change(kind, RubyLLM.file_store.active_storage(Chat.find(chat.id)), path)
    end
  rescue RubyLLM::FileStore::LockError => e
    raise unless e.message.match?(/\Aanother task is changing Chat \d+'s files, .* #{Regexp.escape(path)} /)

    'refused'
  end

  # The outcomes of +jobs+ jobs of +kind+, each at a path of its own; each path changed
  # goes to +made+.
  def run_jobs(kind, name, jobs, made)
    Array.new(jobs) do |j|
      path = "#{name}/#{j}.txt"
      job(kind, path).tap { |outcome| made << path if outcome == 'made' }
    rescue StandardError => e
      "#{e.class}: #{e.message}"
    end
  end

  # +threads+ threads in a child, +jobs+ jobs each; their outcomes counted and the
  # paths changed, as one line of JSON on +out+.
  def child_jobs(kind, threads, jobs, tag, out)
    config = ActiveRecord::Base.connection_db_config.configuration_hash
    ActiveRecord::Base.establish_connection(config.merge(pool: threads + 1))
    made = Queue.new
    counts = Array.new(threads) { |t| Thread.new { run_jobs(kind, "#{tag}/#{t}", jobs, made) } }.flat_map(&:value)
    out.puts(JSON.generate('counts' => counts.tally, 'made' => Array.new(made.size) { made.pop }))
  end

  def in_child(out)
    fork do
      yield
      exit!(0)
    rescue Exception => e # rubocop:disable Lint/RescueException
      out.puts(JSON.generate('counts' => { "#{e.class}: #{e.message}" => 1 }, 'made' => []))
      exit!(1)
    end
  end

  # The outcomes of +count+ threads in two processes, +jobs+ jobs each, and the paths
  # changed.
  def two_processes(kind, count, jobs)
    ActiveRecord::Base.connection_pool.disconnect!
    found = %w[a b].map do |tag|
      reader, writer = IO.pipe
      pid = in_child(writer) { child_jobs(kind, count / 2, jobs, tag, writer) }
      writer.close
      JSON.parse(Timeout.timeout(300) { reader.read }).tap { Process.wait(pid) }
    end
    counts = found.map { |f| f['counts'] }.inject { |a, b| a.merge(b) { |_, x, y| x + y } }
    warn "#{count} #{kind} jobs: #{counts.inspect}" if ENV['VERBOSE']
    [counts, found.flat_map { |f| f['made'] }]
  end

  def paths(count, jobs)
    %w[a b].product(Array.new(count / 2) { |t| t }, Array.new(jobs) { |j| j }).map { |tag, t, j| "#{tag}/#{t}/#{j}.txt" }
  end

  # Blob rows no attachment uses, files on the service with no row, rows whose file is
  # gone.
  def debris
    keys = ActiveStorage::Blob.pluck(:key)
    stored = ActiveStorageServers.stored_keys
    { unattached: ActiveStorage::Blob.where.not(id: ActiveStorage::Attachment.select(:blob_id)).count,
      objects_without_row: (stored - keys).size, rows_without_object: (keys - stored).size }
  end

  def expect_made_or_refused(counts, total)
    expect(counts.keys - %w[made refused]).to be_empty, counts.inspect
    expect(counts.values.sum).to eq(total)
    expect(counts['made']).to be_positive
  end

  def files
    store.list.to_h { |file| [file.path, store.read(file.path)] }
  end

  %w[write_file write].each do |kind|
    [4, 16, 64].each do |count|
      it "#{kind}: writes or refuses with LockError, never a raw error, at #{count} writers in two processes" do
        store.write('first.txt', 'first')
        before = debris
        jobs = [64 / count, 2].max
        counts, made = two_processes(kind, count, jobs)
        expect_made_or_refused(counts, count * jobs)
        # Each write made is there; nothing refused is, not even a blob.
        expect(files).to eq(made.to_h { |path| [path, path] }.merge('first.txt' => 'first'))
        expect(debris).to eq(before)
      end
    end
  end

  [4, 16].each do |count|
    it "delete: deletes or refuses with LockError, never a raw error, at #{count} writers in two processes" do
      jobs = 64 / count
      all = paths(count, jobs)
      all.each { |path| store.write(path, path) }
      before = debris
      counts, made = two_processes('delete', count, jobs)
      expect_made_or_refused(counts, count * jobs)
      # Each file deleted is gone; each one refused is there as it was.
      expect(files).to eq((all - made).to_h { |path| [path, path] })
      expect(debris).to eq(before)
    end
  end

  # A read converts the document and keeps its text in its row under the chat's lock;
  # a job's transaction that cannot have the lock still reads the text.
  it 'reads a document in a job while another process holds the write lock' do
    store.write('page.html', '<html><body><h1>Quarterly report</h1><p>Revenue grew.</p></body></html>')
    ActiveRecord::Base.connection_pool.disconnect!
    ready_reader, ready = IO.pipe
    go, go_writer = IO.pipe
    pid = in_child(ready) do
      ActiveRecord::Base.establish_connection(ActiveRecord::Base.connection_db_config.configuration_hash)
      store.with_lock do
        store.write('held.txt', 'held')
        ready.puts('{}')
        go.gets
      end
    end
    Timeout.timeout(60) { ready_reader.gets }
    answer = ActiveRecord::Base.transaction do
      Chat.find(chat.id)
      RubyLLM::FileStore::Tools::ReadFile.new(RubyLLM.file_store.active_storage(Chat.find(chat.id))).call(path: 'page.html')
    end
    go_writer.puts
    Process.wait(pid)
    expect(answer).to include('Quarterly report').and include('Revenue grew.')
    expect(answer).not_to start_with('Error')
  end
end
