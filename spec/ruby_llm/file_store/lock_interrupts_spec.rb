# frozen_string_literal: true

require 'stringio'

# The folder store's lock under the interrupts a server delivers all day: thousands of
# calls to with_lock, write_file, edit_file and delete stopped at random points by
# Timeout.timeout, Thread#raise with an application's StandardError and Thread#kill.
# Afterwards another thread, another store on the folder and another process each take
# the lock within a second. The garbage collector is off meanwhile, so a lock an
# interrupt left to be freed by it shows as held.
RSpec.describe 'RubyLLM::FileStore::Directory locks interrupted', :large do
  include TmpDirHelper

  let(:root) { File.join(tmp_dir, 'store') }
  let(:store) { RubyLLM::FileStore::Directory.new(root) }
  let(:tools) { RubyLLM::FileStore::Tools }
  let(:contents) { Array.new(4) { |i| ("#{i}\n" * 20_000).b } }
  let(:paths) { %w[a.txt b/c.txt d.txt] }

  def within_a_second(&)
    Timeout.timeout(1, &)
  end

  # One call of the store, chosen by +rng+, as a tool or the application makes it.
  def call_store(rng)
    path = paths.sample(random: rng)
    content = contents.sample(random: rng)
    case rng.rand(5)
    when 0 then store.with_lock { store.write(path, "#{store.read(path)[0, 10]}#{content}") if store.exist?(path) }
    when 1 then tools::WriteFile.new(store).call(path:, content:)
    when 2 then store.write(path, StringIO.new(content))
    when 3 then edit(path)
    else store.delete(path)
    end
  rescue RubyLLM::FileNotFoundError
    nil # deleted meanwhile by another call
  end

  def edit(path)
    tools::ReadFile.new(store).call(path:)
    tools::EditFile.new(store).call(path:, old_text: "1\n", new_text: "one\n", replace_all: true)
  end

  # How long a call takes here, so interrupts land anywhere from its start to its end.
  def call_time
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    20.times { |i| call_store(Random.new(i)) }
    (Process.clock_gettime(Process::CLOCK_MONOTONIC) - started) / 20
  end

  def lock_in_child
    pid = fork do
      within_a_second { RubyLLM::FileStore::Directory.new(root).with_lock { nil } }
      exit!(0)
    rescue Exception # rubocop:disable Lint/RescueException
      exit!(1)
    end
    Process.wait2(pid).last.exitstatus
  end

  # Another process that keeps taking the folder's lock for a few milliseconds at a
  # time, so the storm's calls wait for it and interrupts land as it is taken.
  def rival
    fork do
      rng = Random.new(RSpec.configuration.seed)
      rival = RubyLLM::FileStore::Directory.new(root)
      loop do
        rival.with_lock { sleep(rng.rand(0.001..0.01)) }
        sleep(rng.rand(0.001..0.005))
      end
    rescue Exception # rubocop:disable Lint/RescueException
      exit!(0)
    end
  end

  def stop(pid)
    Process.kill(:TERM, pid)
    Process.wait(pid)
  end

  it 'leaves the lock free for threads and processes after 2,400 interrupted calls' do
    longest = call_time * 1.5
    rival_pid = rival
    GC.disable
    sent = InterruptStorm.run(count: 2400, workers: 4, longest:, seed: RSpec.configuration.seed) do |rng|
      call_store(rng)
    end
    expect(sent.values.sum).to eq(2400)
    stop(rival_pid)
    rival_pid = nil
    expect(Thread.new { within_a_second { store.with_lock { :taken } } }.value).to eq(:taken)
    other = RubyLLM::FileStore::Directory.new(root)
    expect(within_a_second { other.with_lock { :taken } }).to eq(:taken)
    expect(lock_in_child).to eq(0)
  ensure
    GC.enable
    stop(rival_pid) if rival_pid
  end

  it 'leaves no temporary file and no file part-written' do
    InterruptStorm.run(count: 600, workers: 4, longest: call_time * 1.5, seed: RSpec.configuration.seed + 1) do |rng|
      call_store(rng)
    end
    expect(Dir.glob('**/.*', File::FNM_DOTMATCH, base: root).reject { |name| File.basename(name).match?(/\A\.\.?\z/) })
      .to be_empty
    store.list.each do |file|
      text = store.read(file.path)
      expect(contents.any? { |content| text.end_with?(content.gsub("1\n", "one\n")) || text.end_with?(content) })
        .to be(true), "#{file.path} is not whole"
    end
  end

  it 'lets a child forked inside with_lock live on without holding the lock' do
    reader, writer = IO.pipe
    child = store.with_lock do
      fork do
        reader.close
        writer.puts('forked')
        sleep 30
        exit!(0)
      end
    end
    writer.close
    reader.gets
    expect(lock_in_child).to eq(0)
  ensure
    if child
      Process.kill(:KILL, child)
      Process.wait(child)
    end
  end
end
