# frozen_string_literal: true

require 'async'

# with_lock under Async on the Active Storage store: exclusive between the fibers of
# one thread as between threads, on the database RUBY_LLM_FILE_STORE_DATABASE_URL
# names (bin/test-async: SQLite, then PostgreSQL and MariaDB from bin/db-servers),
# with Active Record's connections by fiber (what ruby_llm's guide sets for Async) and,
# on SQLite, by thread (its default). And a storm of Task#stop leaves no gate and no
# connection held.
RSpec.describe 'with_lock under Async', :rails, :slow do
  let(:chat) { Chat.create!(model_id: 'gpt-4.1-mini') }
  let(:gates) { RubyLLM::FileStore::RailsStore::Gates }

  def state
    ActiveSupport::IsolatedExecutionState
  end

  around do |example|
    level = state.isolation_level
    example.run
  ensure
    state.isolation_level = level
  end

  # +count+ increments of one file's number, each inside with_lock with a pause
  # between its read and its write, in a fiber of its own chat's store. The fiber's own
  # queries use a connection it gives back at its end, as a Rails executor does for
  # a request (Active Record's reaper cannot take back one lent to a fiber).
  def increments(id, count)
    ActiveRecord::Base.connection_pool.with_connection do
      store = RubyLLM.file_store.active_storage(Chat.find(id))
      count.times { LockCounts.increment(store) }
    end
  end

  def fibers(id, fibers, count)
    Sync { |task| Array.new(fibers) { task.async { increments(id, count) } }.each(&:wait) }
  end

  def counted(id)
    RubyLLM.file_store.active_storage(Chat.find(id)).read('n.txt').to_i
  end

  def held_connections
    ActiveRecord::Base.connection_pool.connections.count(&:in_use?)
  end

  # With connections by thread the fibers of a thread share one, which the pg and
  # mysql2 gems, waiting through the scheduler, refuse to share (Active Record itself is
  # not fiber-safe so): there only SQLite, whose calls never switch fibers, is asked.
  levels = ActiveStorageServers.url ? %i[fiber] : %i[thread fiber]
  levels.each do |level|
    context "with connections by #{level}" do
      before do
        ActiveRecord::Base.connection_handler.clear_active_connections!
        state.isolation_level = level
        RubyLLM.file_store.active_storage(chat).write('n.txt', '0')
      end

      it 'counts 3 fibers x 10 increments exactly' do
        fibers(chat.id, 3, 10)
        expect(counted(chat.id)).to eq(30)
        expect(gates::GATES).to be_empty
        # Each fiber gave back the connection it took.
        ActiveRecord::Base.connection_handler.clear_active_connections!
        expect(held_connections).to eq(0)
      end

      it 'counts 3 threads x 10 increments exactly' do
        Array.new(3) { Thread.new { increments(chat.id, 10) } }.each(&:join)
        expect(counted(chat.id)).to eq(30)
      end

      it 'counts 3 threads x 3 fibers x 4 increments exactly' do
        Array.new(3) { Thread.new { fibers(chat.id, 3, 4) } }.each(&:join)
        expect(counted(chat.id)).to eq(36)
        expect(gates::GATES).to be_empty
      end

      it 'leaves no gate and no connection held after a storm of Task#stop' do
        rng = Random.new(RSpec.configuration.seed)
        Sync do |task|
          6.times do
            tasks = Array.new(8) { task.async { increments(chat.id, 3) } }
            sleep rng.rand(0.0..0.05)
            tasks.sample(5, random: rng).each(&:stop)
            tasks.each(&:wait)
          end
        end
        ActiveRecord::Base.connection_handler.clear_active_connections!
        expect(gates::GATES).to be_empty
        expect(held_connections).to eq(0)
        # And the chat goes on: another round counts exactly from where the storm left it.
        before = counted(chat.id)
        fibers(chat.id, 3, 2)
        expect(counted(chat.id)).to eq(before + 6)
      end
    end
  end

  it 'lets no other fiber of the thread in while a fiber is suspended inside with_lock' do
    store = RubyLLM.file_store.active_storage(chat)
    inside = Enumerator.new { |out| store.with_lock { out << :inside << :still } }
    expect(inside.next).to eq(:inside)
    expect { store.with_lock { :second } }.to raise_error(RubyLLM::FileStore::LockError, /another fiber/)
    expect(inside.next).to eq(:still)
    expect { inside.next }.to raise_error(StopIteration)
    expect(store.with_lock { :free }).to eq(:free)
  end
end
