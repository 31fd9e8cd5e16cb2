# frozen_string_literal: true

# Chats whose with_lock blocks nest in opposite orders (a tool writing into another
# chat's files inside a chat's lock) finish, or the write that would close the circle
# gets an error the model reads, within seconds: never a hang. Unrelated chats never
# queue on one lock. On SQLite here, on PostgreSQL and MariaDB in bin/test-databases.
RSpec.describe 'RubyLLM::ActiveRecord::FileStore chats nested in opposite orders', :rails do
  let(:write_file) { RubyLLM::FileStore::Tools::WriteFile }

  # Made from the record, so a thread takes a connection only while the store works.
  def store_of(chat) = RubyLLM.file_store.active_storage(chat)

  def sqlite? = RubyLLM::FileStore::RailsStore::SQLiteWait.sqlite?(Chat)

  def elapsed
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    yield
    Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
  end

  # Thread i locks chat i, waits until every thread holds its chat (or, on SQLite,
  # whose one writer lets a single thread in at a time, a moment), then writes into
  # chat i + 1's files with write_file: a circle of +count+ chats.
  def circle(chats)
    count = chats.size
    holding = Queue.new
    Array.new(count) do |i|
      Thread.new do
        mine = store_of(chats[i])
        mine.with_lock do
          mine.write('own.txt', "thread #{i}")
          holding << i
          deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + (sqlite? ? 0.05 : 5)
          sleep 0.01 until holding.size >= count || Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
          write_file.new(store_of(chats[(i + 1) % count])).call(path: "from-#{i}.txt", content: "thread #{i}")
        end
      end
    end.map(&:value)
  end

  [2, 4, 16].each do |count|
    it "ends a circle of #{count} chats within seconds, a refused write told to the model" do
      chats = Array.new(count) { Chat.create!(model_id: 'gpt-4.1-mini') }
      Chat.connection_pool.release_connection
      results = nil
      took = elapsed { results = Timeout.timeout(30) { circle(chats) } }
      expect(took).to be < 12
      refused = results.grep(/\AError: /)
      expect(results - refused).to all(start_with('Wrote'))
      expect(refused).to all(match(/files (are|were) being changed by another task/))
      # A circle is broken by refusing one write; on SQLite there is none to break.
      expect(refused.size).to(sqlite? ? eq(0) : be_between(1, count - 1))
      chats.each_with_index do |chat, i|
        expect(Timeout.timeout(1) { store_of(chat).with_lock { store_of(chat).read('own.txt') } }).to eq("thread #{i}")
      end
    end
  end

  it 'ends two processes that nest two chats in opposite orders within seconds' do
    chats = Array.new(2) { Chat.create!(model_id: 'gpt-4.1-mini') }
    reader, writer = IO.pipe
    pids = Array.new(2) do |i|
      fork do
        reader.close
        mine = store_of(chats[i])
        result = mine.with_lock do
          mine.write('own.txt', "process #{i}")
          sleep 0.5
          write_file.new(store_of(chats[1 - i])).call(path: "from-#{i}.txt", content: "process #{i}")
        end
        writer.puts(result)
        exit!(0)
      rescue Exception => e # rubocop:disable Lint/RescueException
        writer.puts("#{e.class}: #{e.message}")
        exit!(1)
      end
    end
    writer.close
    took = elapsed { Timeout.timeout(30) { pids.each { |pid| Process.wait(pid) } } }
    results = reader.read.lines.map(&:chomp)
    # Each asks for the other's chat without waiting in the database; the one asking out
    # of the chats' order gives up after OUT_OF_ORDER_WAIT (1 s), and the other goes on.
    expect(took).to be < 8
    expect(results.size).to eq(2)
    expect(results).to all(start_with('Wrote').or(match(/\AError: .* files (are|were) being changed by another task/)))
    expect(results.grep(/\AWrote/).size).to be >= 1
  end

  unless ENV['RUBY_LLM_FILE_STORE_DATABASE_URL'].nil?
    it 'lets threads hold the locks of sixteen unrelated chats at once' do
      chats = Array.new(16) { Chat.create!(model_id: 'gpt-4.1-mini') }
      Chat.connection_pool.release_connection
      holding = Queue.new
      together = Array.new(16) do |i|
        Thread.new do
          store_of(chats[i]).with_lock do
            holding << i
            deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 5
            sleep 0.01 until holding.size >= 16 || Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
            holding.size
          end
        end
      end.map(&:value)
      expect(together).to all(eq(16))
    end
  end
end
