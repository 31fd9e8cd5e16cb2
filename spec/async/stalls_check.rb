# frozen_string_literal: true

require 'async'
require_relative '../../bench/support/long_work'
require_relative '../../bench/support/stalls'

# Work that waits, in one fiber of a reactor, while a ticker fiber beside it keeps its
# 10 ms tick: a conversion, a code run, a search, a listing, a ranked search's index
# built and read back, a wait for the folder's lock. Each work takes longer than the
# bound, so work kept on the reactor's thread would stall the ticker past it. Run by
# bin/test-async in the newer stack's root (Ruby 3.3 and 3.4, sid's ruby-async).
# Bounds have a wide margin for a busy 2-core machine; bench/async.rb measures.
RSpec.describe 'work that waits, beside a ticker fiber', :slow do
  include TmpDirHelper

  # Past its 10 ms tick, the ticker may wait this long: the scheduler's own turns and
  # a busy machine's (the Ruby side's work on the result takes the GVL too), never
  # the work's seconds; a third of the work's time where that is longer. Stalled,
  # the ticker waits about the whole work.
  let(:bound) { 0.3 }

  def bound_for(took)
    [bound, took / 3].max
  end

  # The block's value, once it ran beside the ticker for longer than the bound and
  # the ticker never waited past bound_for.
  def without_stall(what)
    value = nil
    longest, took = Stalls.fibers { value = yield }
    expect(took).to be > bound, "the #{what} took #{took.round(3)} s, too short to show a stall"
    expect(longest).to be < bound_for(took), "ticker stalled #{longest.round(3)} s while the #{what} took #{took.round(3)} s"
    value
  end

  it 'converts a PDF of about a second' do
    store = Stalls.pdf_store(tmp_dir, 9000)
    expect(without_stall('conversion') { Stalls.convert(store) }).to include('Page 1')
  end

  it 'runs code for 1.5 s' do
    skip "no sandbox here: #{RubyLLM::FileStore::Native.sandbox_problem}" if RubyLLM::FileStore::Native.sandbox_problem
    expect(without_stall('run') { Stalls.run_code(tmp_dir, 1.5) }.fetch(:exit_code)).to eq(0)
  end

  it 'searches 400 MB of text with a pattern that has no literal to look for first' do
    store = LongWork.large_text_store(tmp_dir, 50, 8)
    expect(without_stall('search') { LongWork.slow_search(store) }).to include('text7.txt:', 'needle zebra 4242')
  end

  it 'lists 600,000 files' do
    store = LongWork.tree_store(tmp_dir, 600_000)
    expect(without_stall('listing') { LongWork.list(store) }).to include('(text/plain, 11 bytes)')
  end

  it "builds the ranked search's index over 15 MB of text, and saves it" do
    store = LongWork.passages_store(tmp_dir, 1, 15)
    expect(without_stall('index build') { LongWork.rank(store) }.first).to include(path: 'part0.md')
    expect(File.size(File.join(store.local_root, '.ruby_llm_index', 'passages'))).to be > (1 << 20)
  end

  it "reads the ranked search's saved index back in a new store object" do
    built = LongWork.passages_store(tmp_dir, 5, 9)
    LongWork.rank(built)
    again = RubyLLM::FileStore::Directory.new(built.local_root)
    expect(without_stall('read back') { LongWork.rank(again) }).not_to be_empty
  end

  it 'waits for the folder lock while another process holds it' do
    root = File.join(tmp_dir, 'locked')
    store = RubyLLM::FileStore::Directory.new(root)
    holder = IO.popen([RbConfig.ruby, '-e', 'File.open(ARGV[0]) { |f| f.flock(File::LOCK_EX); $stdout.puts "held"; $stdout.flush; sleep 1 }', root])
    expect(holder.gets).to eq("held\n")
    expect(without_stall('lock wait') { store.with_lock { :inside } }).to eq(:inside)
    holder.close
  end
end
