# frozen_string_literal: true

# What the store's database blocks hand on to the connection's next user. An error an
# application raises into the thread (as Rack::Timeout does) lands inside Active
# Record's own bookkeeping as readily as in a query: a transaction pushed on Rails'
# stack that no method will pop, a BEGIN the database ran that Rails has no note of.
# The next thread the pool lends that connection to would run inside the abandoned
# transaction. Each case below leaves a connection as such an interrupt does; the
# store's next call must not get it. On SQLite here, on PostgreSQL and MariaDB in
# bin/test-databases.
RSpec.describe 'RubyLLM::ActiveRecord::FileStore connections an interrupt left', :rails do
  let(:chat) { Chat.create!(model_id: 'gpt-4.1-mini') }
  let(:store) { RubyLLM.file_store.active_storage(chat) }
  let(:pool) { RubyLLM::ActiveRecord::ChatFile.connection_pool }
  let(:interrupts) { RubyLLM::FileStore::RailsStore::Interrupts }
  let(:app_error) { Class.new(StandardError) }

  before { store.write('a.txt', 'old') }

  # The connection the block is given, and whether the pool still lends it after.
  def left_in_pool
    used = nil
    begin
      pool.with_connection do |connection|
        used = connection
        interrupts.dropping_if_cut(connection) { yield connection }
      end
    rescue StandardError
      nil
    end
    [used, pool.connections.include?(used)]
  end

  # A BEGIN the database ran, of which Rails has no note (the window in Rails 6.1
  # between a lazy transaction's BEGIN and its note that it was materialized).
  def begin_behind_rails(connection)
    raw = connection.raw_connection
    raw.public_send(%i[exec execute query].find { |name| raw.respond_to?(name) }, 'BEGIN')
  end

  def mysql? = pool.db_config.adapter.to_s.match?(/mysql|trilogy/i)

  it 'keeps a connection that ended with its value, or with an error the store raised' do
    expect(left_in_pool { |c| c.select_value('SELECT 1') }.last).to be(true)
    expect(left_in_pool { raise RubyLLM::FileNotFoundError, 'No file at b.txt' }.last).to be(true)
    expect(left_in_pool { |c| c.execute('SELECT * FROM no_such_table') }.last).to be(true)
  end

  # with_lock's transaction is begun and rolled back by the store with interrupts
  # deferred, so the block's own error ended nothing halfway: no reconnect for it.
  it "keeps a connection a with_lock block's own error ended, its transaction rolled back" do
    used = nil
    expect do
      store.with_lock do
        used = pool.connections.find { |connection| connection.owner.equal?(Thread.current) }
        store.write('a.txt', 'new')
        raise app_error, 'the order was cancelled'
      end
    end.to raise_error(app_error)
    expect(used).not_to be_nil
    expect(pool.connections).to include(used)
    expect(used.transaction_open?).to be(false)
    expect(store.read('a.txt')).to eq('old')
  end

  it "drops a connection an application's error raised into the thread left, before the next call" do
    used, kept = left_in_pool { raise app_error, 'the request took too long' }
    expect(kept).to be(false)
    expect(used.active?).to be_falsey
    expect(store.read('a.txt')).to eq('old')
  end

  it "drops a connection left with a transaction on Rails' stack that no block will pop" do
    used, kept = left_in_pool { |connection| connection.begin_transaction(joinable: true) }
    expect(kept).to be(false)
    expect(used.active?).to be_falsey
    # The next call is not inside it: what it writes is committed, seen by another connection.
    store.write('a.txt', 'new')
    other = ActiveRecord::Base.connection_pool.checkout
    expect(other.select_value("SELECT COUNT(*) FROM ruby_llm_chat_files WHERE path = 'a.txt' AND chat_id = #{chat.id}").to_i).to eq(1)
    ActiveRecord::Base.connection_pool.checkin(other)
    expect(store.read('a.txt')).to eq('new')
  end

  # MariaDB cannot say without a query; there an interrupt's error is what tells.
  it 'drops a connection whose database holds a transaction Rails has no note of' do
    used, kept = left_in_pool do |connection|
      begin_behind_rails(connection)
      raise app_error, 'the request took too long' if mysql?
    end
    expect(kept).to be(false)
    expect(used.active?).to be_falsey
    store.write('a.txt', 'new')
    expect(store.read('a.txt')).to eq('new')
  end
end
