# frozen_string_literal: true

# with_lock within one process, for the memory and folder stores: a waiter interrupted
# at the moment the lock is handed to it must not take the hand-over with it (Ruby's
# Monitor does: the next waiter then sleeps for good beside a free lock).
RSpec.describe 'RubyLLM::FileStore#with_lock within a process' do
  include TmpDirHelper

  let(:stopped) { Class.new(StandardError) }

  {
    'memory' => ->(_dir) { RubyLLM::FileStore::Memory.new },
    'folder' => ->(dir) { RubyLLM::FileStore::Directory.new(File.join(dir, 'store')) }
  }.each do |kind, make|
    context "on the #{kind} store" do
      let(:store) { make.call(tmp_dir) }

      def waiting(thread)
        sleep 0.01 until thread.status == 'sleep' || !thread.alive?
        thread
      end

      it 'hands the lock to the next waiter when the one woken first is interrupted as it wakes' do
        first = nil
        holder = Thread.new do
          store.with_lock { sleep 0.3 }
          first.raise(stopped) # before the waiter just woken can run
        end
        sleep 0.1
        first = waiting(Thread.new do
          store.with_lock { :first }
        rescue stopped
          :stopped
        end)
        second = waiting(Thread.new { store.with_lock { :second } })
        holder.join
        expect(first.value).to eq(:stopped)
        expect(second.join(2)&.value).to eq(:second), 'the second waiter never took the free lock'
      end

      it 'is reentrant, and refuses another fiber of the thread that nothing can resume while it waits' do
        inner = store.with_lock { store.with_lock { :inner } }
        expect(inner).to eq(:inner)
        refusal = store.with_lock do
          Fiber.new { store.with_lock { :taken } }.resume
        rescue RubyLLM::FileStore::LockError => e
          e.message
        end
        expect(refusal).to include('another fiber of this thread')
        expect(Thread.new { store.with_lock { :free } }.join(1)&.value).to eq(:free)
      end

      it 'lets a wait be stopped by Timeout, leaving the lock to its holder and then free' do
        release = Queue.new
        holder = Thread.new { store.with_lock { release.pop } }
        sleep 0.01 until holder.status == 'sleep'
        expect { Timeout.timeout(0.2) { store.with_lock { :taken } } }.to raise_error(Timeout::Error)
        release << true
        holder.join
        expect(Timeout.timeout(1) { store.with_lock { :taken } }).to eq(:taken)
      end
    end
  end
end
