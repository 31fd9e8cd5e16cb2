# frozen_string_literal: true

# Several readers on one store: chats, threads and processes that each read a file
# and write it back. A read is remembered for its reader only, so a write based on a
# read another reader made stale is refused and retried, and no update is lost.
RSpec.describe 'Tools on a store shared by readers' do
  include TmpDirHelper

  let(:root) { File.join(tmp_dir, 'store') }
  let(:rounds) { 50 }

  # One increment as a model does it: read_file, then write_file what it read plus
  # one, again from the read when the write is refused. Returns the refusals.
  def increment(store, reads: nil)
    reader = RubyLLM::FileStore::Tools::ReadFile.new(store, reads:)
    writer = RubyLLM::FileStore::Tools::WriteFile.new(store, reads:)
    refused = 0
    loop do
      value = reader.call(path: 'counter.txt')[/\A\s*1\t(\d+)/, 1].to_i
      Thread.pass
      result = writer.call(path: 'counter.txt', content: (value + 1).to_s)
      return refused if result.start_with?('Wrote')

      raise result unless result.include?('changed since it was read')

      refused += 1
    end
  end

  def count_with_threads(stores, reads: -> {})
    stores.first.write('counter.txt', '0')
    threads = stores.map do |store|
      Thread.new(reads.call) { |record| Array.new(rounds) { increment(store, reads: record) }.sum }
    end
    refused = threads.sum(&:value)
    [stores.first.read('counter.txt').to_i, refused]
  end

  { 'memory' => -> { RubyLLM.file_store.memory }, 'folder' => -> { RubyLLM.file_store.directory(root) } }
    .each do |kind, build|
    it "loses no update of 4 threads on one #{kind} store object, each with the store's record of its thread" do
      store = instance_exec(&build)
      total, refused = count_with_threads([store] * 4)
      expect(total).to eq(4 * rounds)
      # The threads did race: stale reads were refused, not taken for fresh ones.
      expect(refused).to be_positive
    end

    it "loses no update of 4 threads on one #{kind} store object, each with a chat's record" do
      store = instance_exec(&build)
      expect(count_with_threads([store] * 4, reads: -> { RubyLLM::FileStore::Reads.new }).first).to eq(4 * rounds)
    end
  end

  it 'loses no update of 4 threads each with a folder store of its own on one folder' do
    stores = Array.new(4) { RubyLLM.file_store.directory(root) }
    expect(count_with_threads(stores).first).to eq(4 * rounds)
  end

  it 'loses no update of 3 processes x 2 threads on one folder', :large do
    store = RubyLLM.file_store.directory(root)
    store.write('counter.txt', '0')
    pids = Array.new(3) do
      fork do
        shared = RubyLLM.file_store.directory(root)
        Array.new(2) { Thread.new { rounds.times { increment(shared) } } }.each(&:join)
        exit!(0)
      rescue Exception # rubocop:disable Lint/RescueException
        exit!(1)
      end
    end
    expect(pids.map { |pid| Process.wait2(pid).last.exitstatus }).to eq([0, 0, 0])
    expect(store.read('counter.txt')).to eq((6 * rounds).to_s)
  end

  it "needs a read by each chat's tools: one chat's read licenses no write by another" do
    store = RubyLLM.file_store.memory
    store.write('plan.md', 'v1')
    first, second = Array.new(2) { RubyLLM::FileStore::Reads.new }
    RubyLLM::FileStore::Tools::ReadFile.new(store, reads: first).call(path: 'plan.md')
    expect(RubyLLM::FileStore::Tools::WriteFile.new(store, reads: second).call(path: 'plan.md', content: 'v2'))
      .to eq('Error: plan.md exists and has not been read. Read it with read_file before changing it.')
    expect(RubyLLM::FileStore::Tools::EditFile.new(store, reads: second)
      .call(path: 'plan.md', old_text: 'v1', new_text: 'v2')).to start_with('Error: plan.md exists and has not been read')
    expect(RubyLLM::FileStore::Tools::WriteFile.new(store, reads: first).call(path: 'plan.md', content: 'v2'))
      .to start_with('Wrote plan.md')
  end

  it "needs a read in each thread when the tools have no chat's record" do
    store = RubyLLM.file_store.memory
    store.write('plan.md', 'v1')
    RubyLLM::FileStore::Tools::ReadFile.new(store).call(path: 'plan.md')
    other = Thread.new { RubyLLM::FileStore::Tools::WriteFile.new(store).call(path: 'plan.md', content: 'v2') }.value
    expect(other).to start_with('Error: plan.md exists and has not been read')
    expect(RubyLLM::FileStore::Tools::WriteFile.new(store).call(path: 'plan.md', content: 'v2')).to start_with('Wrote')
  end
end
