# frozen_string_literal: true

require 'timeout'
require_relative '../../../bench/support/long_work'
require_relative '../../../bench/support/stalls'

# Under a Fiber scheduler on every Ruby the gem supports, Ruby 3.1 too, where there is
# no Async: TinyScheduler (spec/support) is the least a scheduler must do. A conversion
# and a search run in one fiber while a ticker fiber beside it keeps its 10 ms tick,
# and a Timeout or a stop under the scheduler ends them at once, leaving nothing
# behind. bin/test-async runs the same under Async on Ruby 3.3 and 3.4.
RSpec.describe 'The native calls under a Fiber scheduler', :slow do
  include TmpDirHelper

  # As in spec/async/stalls_check.rb: past its tick the ticker may wait this long, or
  # a third of the work's time where that is longer; stalled, it waits about the whole
  # work, which takes longer than this.
  let(:bound) { 0.3 }

  # [the ticker's longest wait past its tick, the work's seconds, the work's value]
  def beside_a_ticker
    longest = took = value = nil
    TinyScheduler.run do
      done = false
      Fiber.schedule { longest = Stalls.longest_gap { done } }
      Fiber.schedule do
        took = Stalls.timed { value = yield }
      ensure
        done = true
      end
    end
    [longest, took, value]
  end

  def expect_no_stall(longest, took)
    expect(took).to be > bound, "the work took #{took.round(3)} s, too short to show a stall"
    expect(longest).to be < [bound, took / 3].max, "ticker stalled #{longest.round(3)} s while the work took #{took.round(3)} s"
  end

  # The error that ended the block in a fiber stopped after +after+ seconds (by
  # TinyScheduler#stop, or by a Timeout around it), and the seconds past the stop.
  def stopped(how, after: 0.3, &work)
    raised = nil
    started = Stalls.now
    TinyScheduler.run do
      working = Fiber.schedule do
        how == :timeout ? Timeout.timeout(after) { work.call } : work.call
      rescue Timeout::Error, TinyScheduler::Stop => e
        raised = e
      end
      next unless how == :stop

      Fiber.schedule do
        sleep after
        Fiber.scheduler.stop(working)
      end
    end
    [raised, Stalls.now - started - after]
  end

  it 'converts a PDF while a ticker fiber keeps ticking' do
    store = Stalls.pdf_store(tmp_dir, 9000)
    longest, took, text = beside_a_ticker { Stalls.convert(store) }
    expect(text).to include('Page 1')
    expect_no_stall(longest, took)
  end

  it 'searches 400 MB of text while a ticker fiber keeps ticking' do
    store = LongWork.large_text_store(tmp_dir, 50, 8)
    longest, took, found = beside_a_ticker { LongWork.slow_search(store) }
    expect(found).to include('text7.txt:', 'needle zebra 4242')
    expect_no_stall(longest, took)
  end

  { stop: TinyScheduler::Stop, timeout: Timeout::Error }.each do |how, error|
    it "ends a read_file of a PDF at once when #{how == :stop ? 'its fiber is stopped' : 'a Timeout ends it'}, leaving nothing behind" do
      store = RubyLLM::FileStore::Directory.new(File.join(tmp_dir, 'store'))
      store.write('slow.pdf', LongWork.slow_pdf)
      raised, ended = stopped(how) { RubyLLM::FileStore::Tools::ReadFile.new(store).call(path: 'slow.pdf') }
      expect(raised).to be_a(error)
      expect(ended).to be < 1.2
      expect(LeftBehind.after_stop(store)).to be_empty
    end

    it "ends a search at once when #{how == :stop ? 'its fiber is stopped' : 'a Timeout ends it'}, leaving nothing behind" do
      store = LongWork.large_text_store(tmp_dir, 50, 8)
      raised, ended = stopped(how) { LongWork.slow_search(store) }
      expect(raised).to be_a(error)
      expect(ended).to be < 1.2
      expect(LeftBehind.after_stop(store)).to be_empty
    end
  end
end
