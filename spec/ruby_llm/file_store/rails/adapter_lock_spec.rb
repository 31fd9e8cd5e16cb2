# frozen_string_literal: true

# The one change to Rails: a connection's lock keeps interrupts deferred inside the
# store's deferred sections, and is Rails' own everywhere else. On each Rails the suite
# runs on: LoadInterlockAwareMonitor (6.1, 7.2), ThreadLoadInterlockAwareMonitor (7.2),
# ThreadMonitor (8.1).
RSpec.describe 'RubyLLM::FileStore::RailsStore::AdapterLock', :rails do
  let(:classes) do
    RubyLLM::ActiveRecord.const_get(:FileStore) # loads the Rails store
    RubyLLM::FileStore::RailsStore::AdapterLock.lock_classes
  end

  # Raises an application's error into a thread while it holds +lock+ (inside a
  # deferred section or not); whether the thread's work under the lock still finished.
  def finished_under_lock(lock, deferred:)
    inside = Queue.new
    go = Queue.new
    thread = Thread.new do
      finished = false
      work = -> { lock.synchronize { inside << true; go.pop; finished = true } } # rubocop:disable Style/Semicolon
      deferred ? RubyLLM::FileStore::Interrupts.deferred { work.call } : work.call
      :not_raised
    rescue InterruptStorm::AppError
      finished
    end
    inside.pop
    thread.raise(InterruptStorm::AppError, 'the request took too long')
    sleep 0.1
    go << true
    thread.value
  end

  it 'covers a lock class of the Rails loaded' do
    expect(classes).not_to be_empty
  end

  it 'keeps an interrupt out of the lock inside a deferred section, and raises it after' do
    classes.each { |klass| expect(finished_under_lock(klass.new, deferred: true)).to be(true), klass.name }
  end

  it "lets it in at once outside, as Rails' own lock does" do
    classes.each { |klass| expect(finished_under_lock(klass.new, deferred: false)).to be(false), klass.name }
  end
end
