# frozen_string_literal: true

# The second change to Rails: a thread an interrupt takes out of the load interlock's
# or a connection pool's synchronize passes the monitor on, so an interrupt landing on
# the waiter a release wakes cannot leave the next waiter asleep beside a free monitor.
RSpec.describe 'RubyLLM::FileStore::RailsStore::MonitorEntry', :rails do
  before { RubyLLM::ActiveRecord.const_get(:FileStore) } # loads the Rails store

  let(:share_lock) { ActiveSupport::Concurrency::ShareLock.new }
  let(:pool) { ActiveRecord::Base.connection_pool }

  # +lock+ is held here while two threads queue to enter it; it is released and, in the
  # same breath (no thread switch between), an application's error is raised into the
  # first waiter, the one the release wakes. Returns what each waiter ended with.
  def hand_over(lock)
    lock.mon_enter
    first = quiet_thread { lock.synchronize { :entered } }
    Thread.pass until first.status == 'sleep'
    second = quiet_thread { lock.synchronize { :entered } }
    Thread.pass until second.status == 'sleep'
    lock.mon_exit
    first.raise(InterruptStorm::AppError, 'the request took too long')
    [outcome(first), outcome(second)]
  ensure
    [first, second].compact.each(&:kill)
  end

  def quiet_thread(&)
    Thread.new(&).tap { |thread| thread.report_on_exception = false }
  end

  def outcome(thread)
    return :still_waiting unless thread.join(5)

    thread.value
  rescue InterruptStorm::AppError
    :interrupted
  end

  it 'lets the next waiter into the load interlock when the woken one is interrupted' do
    first, second = hand_over(share_lock)
    expect(second).to eq(:entered)
    expect(first).to eq(:interrupted).or eq(:entered)
  end

  it 'lets the next waiter into a connection pool when the woken one is interrupted' do
    expect(hand_over(pool).last).to eq(:entered)
  end

  it 'still raises the interrupt into the thread, with the monitor given back' do
    first, = hand_over(share_lock)
    expect(first).to eq(:interrupted)
    expect(share_lock.mon_locked?).to be(false)
  end

  it 'leaves waits inside the monitor open to interrupts' do
    waiting = quiet_thread { share_lock.synchronize { share_lock.new_cond.wait } }
    Thread.pass until waiting.status == 'sleep'
    waiting.raise(InterruptStorm::AppError, 'the request took too long')
    expect(outcome(waiting)).to eq(:interrupted)
    expect(share_lock.mon_locked?).to be(false)
  end
end
