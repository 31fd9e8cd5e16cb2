# frozen_string_literal: true

require 'async'
require 'async/barrier'

# with_lock under Async on the memory and folder stores: exclusive between the
# fibers of one thread, and free once a storm of Task#stop has landed in fibers
# waiting for it and fibers holding it (StoreLock, and on the folder store the
# flock on its folder too). Run by bin/test-async in the newer stack's root.
RSpec.describe 'with_lock of the memory and folder stores under Async', :slow do
  include TmpDirHelper

  def increments(store, count)
    count.times { LockCounts.increment(store) }
  end

  # Runs the block in a reactor, given a barrier to start tasks in, for +seconds+ at
  # most, and stops what it started: a lock left held would otherwise keep its waiters,
  # and the example, waiting for good.
  def bounded(seconds = 30)
    Sync do |task|
      barrier = Async::Barrier.new
      task.with_timeout(seconds) { yield barrier }
    ensure
      barrier&.stop
    end
  end

  def fibers(store, fibers, count)
    bounded { |barrier| Array.new(fibers) { barrier.async { increments(store, count) } }.each(&:wait) }
  end

  {
    'memory' => ->(_dir) { RubyLLM::FileStore::Memory.new },
    'folder' => ->(dir) { RubyLLM::FileStore::Directory.new(File.join(dir, 'store')) }
  }.each do |kind, make|
    context "on the #{kind} store" do
      let(:store) { make.call(tmp_dir).tap { |store| store.write('n.txt', '0') } }

      it 'counts 3 fibers x 10 increments exactly' do
        fibers(store, 3, 10)
        expect(store.read('n.txt')).to eq('30')
      end

      it 'is free for another fiber and another thread at once after a storm of Task#stop' do
        rng = Random.new(RSpec.configuration.seed)
        stopped = 0
        bounded do |barrier|
          6.times do
            tasks = Array.new(8) { barrier.async { increments(store, 3) } }
            sleep rng.rand(0.0..0.05)
            victims = tasks.sample(5, random: rng)
            stopped += victims.count(&:running?)
            victims.each(&:stop)
            tasks.each(&:wait)
          end
        end
        expect(stopped).to be_positive
        taken = bounded(1) { store.with_lock { :fiber } }
        expect(taken).to eq(:fiber)
        expect(Thread.new { store.with_lock { :thread } }.join(1)&.value).to eq(:thread)
        if store.respond_to?(:local_root)
          expect(LeftBehind.free_for_a_process?(store.local_root)).to be(true), 'the folder lock is still held'
        end
        # And the count goes on exactly from where the storm left it.
        before = store.read('n.txt').to_i
        fibers(store, 3, 2)
        expect(store.read('n.txt').to_i).to eq(before + 6)
      end
    end
  end
end
