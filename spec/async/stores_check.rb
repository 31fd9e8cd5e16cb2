# frozen_string_literal: true

require 'async'
require_relative '../../bench/support/stalls'

# The stores and the tools inside Async tasks, as Falcon runs a request: the store
# contract in a reactor, and work that waits stopped by Task#stop or a Timeout
# (stalls_check.rb holds the stalls). Run by bin/test-async in the newer stack's root
# (Ruby 3.3, sid's ruby-async).
RSpec.describe 'the stores under Async' do
  include TmpDirHelper

  around { |example| Sync { example.run } }

  describe RubyLLM::FileStore::Memory do
    it_behaves_like 'a RubyLLM file store' do
      let(:store) { described_class.new }
    end
  end

  describe RubyLLM::FileStore::Directory do
    it_behaves_like 'a RubyLLM file store' do
      let(:store) { described_class.new(File.join(tmp_dir, 'store')) }
    end
  end
end

RSpec.describe 'work that waits, stopped', :slow do
  include TmpDirHelper

  # Past its 10 ms tick, the ticker may wait this long: the scheduler's own turns and
  # a busy machine's (the Ruby side's work on the result takes the GVL too), never
  # the work's seconds; a third of the work's time where that is longer. Stalled,
  # the ticker waits the whole work. bench/async.rb measures the figures.
  let(:bound) { 0.3 }

  def bound_for(took)
    [bound, took / 3].max
  end

  def stall_of(&)
    longest, took = Stalls.fibers(&)
    [longest, took]
  end

  it 'stops a conversion when its task is stopped, and the fiber goes on' do
    store = Stalls.pdf_store(tmp_dir, 12_000)
    Sync do |task|
      started = Stalls.now
      converting = task.async { Stalls.convert(store) }
      sleep 0.3
      converting.stop
      expect(converting.wait).to be_nil
      expect(Stalls.now - started).to be < 1.5
    end
  end

  # A stopped task stops its code run, as Thread#kill does (the run is killed and the
  # folder given back); the other fibers go on meanwhile.
  it 'stops the code run of a stopped task, and the other fibers go on' do
    skip "no sandbox here: #{RubyLLM::FileStore::Native.sandbox_problem}" if RubyLLM::FileStore::Native.sandbox_problem
    longest, took = stall_of do
      Sync do |task|
        running = task.async { Stalls.run_code(tmp_dir, 1.5) }
        sleep 0.3
        running.stop
        running.wait
      end
    end
    expect(took).to be < 1.5
    expect(longest).to be < bound_for(took)
  end

  it 'stops a conversion when a Timeout ends it under the scheduler' do
    store = Stalls.pdf_store(tmp_dir, 12_000)
    Sync do
      started = Stalls.now
      pdf = store.read('big.pdf')
      expect { Timeout.timeout(0.3) { RubyLLM::FileStore::Native.convert_pdf(pdf) } }.to raise_error(Timeout::Error)
      expect(Stalls.now - started).to be < 1.5
      # And the store works on.
      expect(store.read('big.pdf').bytesize).to be_positive
    end
  end

  it "lets the caller's Timeout end a read_file call under the scheduler, never as the tool's Error: line" do
    store = Stalls.pdf_store(tmp_dir, 12_000)
    Sync do
      started = Stalls.now
      read_file = RubyLLM::FileStore::Tools::ReadFile.new(store)
      expect { Timeout.timeout(0.3) { read_file.call(path: 'big.pdf') } }.to raise_error(Timeout::Error)
      expect(Stalls.now - started).to be < 1.5
    end
  end
end
