# frozen_string_literal: true

require 'json'

# A chat's files written by jobs in two processes, each job inside the application's own
# ActiveRecord::Base.transaction that reads before the store writes (as a job that
# loads its records first does). On SQLite such a transaction holds a snapshot, and once
# another connection has written since, SQLite refuses its first write at once
# ("database is locked"): no wait can help. Each write either is made or is refused
# with the store's LockError, which write_file hands the model as an Error: that says
# so; never a raw database error. docs/rails.md states the rates measured here.
RSpec.describe 'RubyLLM::ActiveRecord::FileStore on SQLite, written by jobs in transactions', :rails, :slow do
  let(:chat) { Chat.create!(model_id: 'gpt-4.1-mini') }

  before do
    skip 'SQLite only: PostgreSQL and MariaDB wait for the row lock' if ActiveStorageServers.url
  end

  # One job: the application's transaction, a read, then write_file.
  def job(chat_id, path, content)
    ActiveRecord::Base.transaction do
      Chat.find(chat_id)
      store = RubyLLM.file_store.active_storage(Chat.find(chat_id))
      RubyLLM::FileStore::Tools::WriteFile.new(store).call(path:, content:)
    end
  end

  def outcome(answer)
    return 'written' if answer.start_with?('Wrote')
    return 'refused' if answer.match?(/\AError: another task is changing Chat \d+'s files/)

    answer
  end

  # The outcomes of +jobs+ jobs, each writing a file of its own; [path, content] of each
  # write made goes to +written+.
  def run_jobs(name, jobs, written)
    Array.new(jobs) do |j|
      path = "#{name}/#{j}.txt"
      answer = job(chat.id, path, "#{name} #{j}")
      written << [path, "#{name} #{j}"] if answer.start_with?('Wrote')
      outcome(answer)
    rescue StandardError => e
      "#{e.class}: #{e.message}"
    end
  end

  # +threads+ threads in a child, +jobs+ jobs each; their outcomes counted and the
  # writes made, as one line of JSON on +out+.
  def child_writes(threads, jobs, tag, out)
    config = ActiveRecord::Base.connection_db_config.configuration_hash
    ActiveRecord::Base.establish_connection(config.merge(pool: threads + 1))
    written = Queue.new
    counts = Array.new(threads) { |t| Thread.new { run_jobs("#{tag}/#{t}", jobs, written) } }.flat_map(&:value).tally
    out.puts(JSON.generate('counts' => counts, 'written' => Array.new(written.size) { written.pop }))
  end

  def writers(threads, jobs, tag)
    reader, writer = IO.pipe
    pid = fork do
      reader.close
      child_writes(threads, jobs, tag, writer)
      exit!(0)
    rescue Exception => e # rubocop:disable Lint/RescueException
      writer.puts(JSON.generate('counts' => { "#{e.class}: #{e.message}" => 1 }, 'written' => []))
      exit!(1)
    end
    writer.close
    [pid, reader]
  end

  [4, 16, 64].each do |count|
    it "writes or refuses with LockError, never a raw error, at #{count} writers in two processes" do
      store = RubyLLM.file_store.active_storage(chat)
      store.write('first.txt', 'first')
      ActiveRecord::Base.connection_pool.disconnect!
      jobs = [64 / count, 2].max
      children = %w[a b].map { |tag| writers(count / 2, jobs, tag) }
      found = children.map do |pid, reader|
        JSON.parse(Timeout.timeout(300) { reader.read }).tap { Process.wait(pid) }
      end
      counts = found.map { |f| f['counts'] }.inject { |a, b| a.merge(b) { |_, x, y| x + y } }
      warn "#{count} writers: #{counts.inspect}" if ENV['VERBOSE']
      expect(counts.keys - %w[written refused]).to be_empty, counts.inspect
      expect(counts.values.sum).to eq(count * jobs)
      expect(counts['written']).to be_positive
      # Each write made is there; nothing refused is.
      written = found.flat_map { |f| f['written'] }.to_h
      expect(store.list.to_h { |file| [file.path, store.read(file.path)] }).to eq(written.merge('first.txt' => 'first'))
    end
  end
end
