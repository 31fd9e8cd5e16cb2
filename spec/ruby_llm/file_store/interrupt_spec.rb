# frozen_string_literal: true

require 'timeout'

# Every native call that can wait or run long gives way to Timeout.timeout and
# Thread#kill at once, as a Puma or Sidekiq request timeout needs.
RSpec.describe 'Interrupting native calls', :large, :native do
  include TmpDirHelper

  let(:root) { File.join(tmp_dir, 'store') }
  let(:store) { RubyLLM::FileStore::Directory.new(root) }

  def elapsed
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    yield
    Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
  end

  def timed_out_after(seconds, &)
    elapsed do
      Timeout.timeout(seconds, &)
      raise 'the block finished before the timeout'
    rescue Timeout::Error
      nil
    end
  end

  # A child process holds the store's lock until it is killed.
  def hold_lock_in_child
    reader, writer = IO.pipe
    pid = fork do
      RubyLLM::FileStore::Directory.new(root).with_lock do
        writer.puts('held')
        sleep 30
      end
    end
    reader.gets
    pid
  end

  def release(pid)
    Process.kill(:KILL, pid)
    Process.wait(pid)
  end

  it 'stops waiting for a lock another process holds when the timeout ends' do
    pid = hold_lock_in_child
    waited = timed_out_after(0.5) { store.with_lock { nil } }
    expect(waited).to be < 1.0
    release(pid)
    expect(store.with_lock { :entered }).to eq(:entered)
  end

  it 'ends a thread killed while it waits for the lock, and the lock stays usable' do
    pid = hold_lock_in_child
    waiter = Thread.new { store.with_lock { nil } }
    sleep 0.2
    expect(elapsed { waiter.kill.join }).to be < 0.5
    release(pid)
    expect(Timeout.timeout(5) { store.with_lock { :entered } }).to eq(:entered)
  end

  context 'with 2 GB of text to search (one 50 MB file, linked 40 times)' do
    let(:pattern) { '\p{L}{2,}\s\p{L}*[xyz]\p{L}*\s\d' }

    before do
      line = "the quick brown fox jumps over the lazy dog 0123456789 ÄÖÜ éèê\n"
      File.binwrite(File.join(store.local_root, 'big0.txt'), line * (50_000_000 / line.bytesize))
      1.upto(39) { |i| File.link(File.join(root, 'big0.txt'), File.join(root, "big#{i}.txt")) }
    end

    def search
      store.search_tree(nil, pattern, literal: false, ignore_case: true, context: 0, max_matches: 10)
    end

    it 'stops a search when the timeout ends', :slow do
      whole = elapsed { search }
      expect(timed_out_after(0.2) { search }).to be < [0.6, whole / 2].min
    end

    # A program of one thread (a console, a script): Ctrl-C reaches the call
    # through Ruby's signal handler, with no other thread to deliver it.
    it 'stops a search at Ctrl-C in a program of one thread' do
      lib = File.expand_path('../../../lib', __dir__)
      code = "require 'ruby_llm/file_store'; s = RubyLLM::FileStore::Directory.new(ARGV[0]); $stdout.puts 'go'; " \
             '$stdout.flush; s.search_tree(nil, ARGV[1], literal: false, ignore_case: true, context: 0, ' \
             'max_matches: 10); puts :finished'
      IO.popen([RbConfig.ruby, '-I', lib, '-e', code, root, pattern, { err: %i[child out] }]) do |io|
        expect(io.gets).to eq("go\n")
        sleep 0.3
        Process.kill(:INT, io.pid)
        stopped = elapsed { expect(io.read).to include('Interrupt') }
        expect(stopped).to be < 0.5
      end
      expect(Process.last_status.termsig).to eq(Signal.list['INT'])
    end

    # Past 80 files found and not yet searched, the thread that walks the folder
    # searches some itself: the timeout reaches it there too.
    it 'stops a search of more files than it holds waiting, 200 in folders, when the timeout ends' do
      1.upto(200) do |i|
        FileUtils.mkdir_p(File.join(root, "many/#{i % 7}"))
        File.link(File.join(root, 'big0.txt'), File.join(root, "many/#{i % 7}/big#{i}.txt"))
      end
      expect(timed_out_after(0.2) { search }).to be < 0.6
    end

    it 'stops a search through the listed files when the timeout ends' do
      entries = store.list.map { |file| [file.path, nil] }
      expect(timed_out_after(0.2) do
        store.search(entries, pattern, literal: false, ignore_case: true, context: 0, max_matches: 10)
      end).to be < 0.6
    end
  end

  it 'stops waiting for an 85 MB HTML conversion when the timeout ends' do
    html = "<html><body>#{'<p>hello <b>world</b> and more</p>' * 2_500_000}</body></html>"
    # 0.56 s on a quiet machine, 1.25 s once with both cores busy; whole, the
    # conversion takes 2 s there.
    expect(timed_out_after(0.5) { RubyLLM::FileStore::Native.convert_html(html) }).to be < 1.5
  end

  # A kill that lands while the binding makes the exception of a refusal (the gem's
  # error classes have an initialize in Ruby) is raised as the kill, and the process
  # lives on: made late by magnus, it was a panic that aborted the process.
  it 'lives on when threads are killed while native refusals are being made', :slow do
    lib = File.expand_path('../../../lib', __dir__)
    code = <<~RUBY
      require 'ruby_llm/file_store'
      rng = Random.new(#{RSpec.configuration.seed})
      2_000.times do
        refusing = Thread.new do
          loop do
            RubyLLM::FileStore::Native.edit('abc', old_text: 'x', new_text: 'y', max_size: 100)
          rescue RubyLLM::FileStore::EditError
            nil
          end
        end
        sleep(rng.rand(0.0..0.0005))
        refusing.kill.join
      end
      puts :lived
    RUBY
    output = IO.popen([RbConfig.ruby, '-I', lib, '-e', code, { err: %i[child out] }], &:read)
    expect([output.lines.last, Process.last_status.exitstatus]).to eq(["lived\n", 0])
  end

  # The first Native::Writer a process hands to Ruby made magnus look its class up, and
  # a kill landing then panicked the extension on Ruby 3.3 ("called Result::unwrap() on
  # an Err value: Error(Jump(Fatal))"), in 22 of 50 fresh runs of the kill of a
  # streamed write in directory_spec. Here that kill is the first thing each of 20
  # fresh processes does: each lives on, keeps the old file and leaves no temporary file.
  # The store makes its writer with interrupts deferred, so this holds even with a
  # binding that looks the class up late; the next example holds the binding itself.
  it 'lives on when the first streamed write of a process is killed as it starts' do
    lib = File.expand_path('../../../lib', __dir__)
    code = <<~RUBY
      require 'ruby_llm/file_store'
      root = ARGV.fetch(0)
      store = RubyLLM::FileStore::Directory.new(root)
      store.write('doc.txt', 'old')
      reader, writer = IO.pipe
      writer.write('x' * 10_000)
      writing = Thread.new { store.write('doc.txt', reader) }
      sleep 0.001 until Dir.children(root).size == 2 || !writing.alive?
      writing.kill.join
      puts [store.read('doc.txt'), *Dir.children(root).sort].join(' ')
    RUBY
    outcomes = Array.new(20) do |i|
      folder = File.join(tmp_dir, "run#{i}")
      output = IO.popen([RbConfig.ruby, '-I', lib, '-e', code, folder, { err: %i[child out] }], &:read)
      [output.lines.last, Process.last_status.exitstatus]
    end
    expect(outcomes.uniq).to eq([["old doc.txt\n", 0]])
  end

  # The binding on its own, with no deferral around it: a kill made pending while the
  # first Native::Writer of a process is made off the GVL (the main thread holds the
  # GVL until the work is done) lands as soon as Ruby code runs in that thread. When
  # magnus looked the class up then, that was inside the binding, and it panicked in
  # every process; looked up as the extension loads, the kill lands in Ruby.
  it 'lives on when a kill is pending as the binding hands over its first writer' do
    lib = File.expand_path('../../../lib', __dir__)
    code = <<~RUBY
      require 'ruby_llm/file_store'
      native = RubyLLM::FileStore::Native::Directory.open(ARGV.fetch(0))
      ready = Queue.new
      writing = Thread.new do
        ready << true
        native.writer('doc.txt', nil)
      end
      ready.pop
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      nil while Process.clock_gettime(Process::CLOCK_MONOTONIC) - started < 0.005
      writing.kill.join
      puts :lived
    RUBY
    outcomes = Array.new(10) do |i|
      folder = File.join(tmp_dir, "binding#{i}")
      FileUtils.mkdir_p(folder)
      output = IO.popen([RbConfig.ruby, '-I', lib, '-e', code, folder, { err: %i[child out] }], &:read)
      [output.lines.last, Process.last_status.exitstatus]
    end
    expect(outcomes.uniq).to eq([["lived\n", 0]])
  end
end
