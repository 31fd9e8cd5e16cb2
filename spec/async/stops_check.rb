# frozen_string_literal: true

require 'async'
require 'timeout'
require_relative '../../bench/support/long_work'
require_relative '../../bench/support/stalls'

# A fiber stopped while the gem works for it, by Async's Task#stop or by a Timeout
# under the scheduler, as Falcon stops a request whose client went away: the stop is
# raised in the fiber soon after, and nothing of the work is left behind (LeftBehind:
# no native work still running, no convert worker converting, no code run's host, the
# folder given back to the app, its lock free for another process and another thread).
# Run by bin/test-async in the newer stack's root.
RSpec.describe 'a stopped fiber, under Async', :slow do
  include TmpDirHelper

  # How long after its stop a fiber may take to end: every work below takes seconds.
  let(:ends_within) { 1.2 }

  after { let_go }

  # The folder store the work uses: a fresh one, or the one its fixture made.
  def store
    @store ||= RubyLLM::FileStore::Directory.new(File.join(tmp_dir, 'store'))
  end

  # Runs the block in a task stopped +after+ seconds by +how+ (:stop or :timeout);
  # the error that ended it (nil if it ended by itself), and the seconds it took past
  # its stop.
  def stopped(how, after, &work)
    raised = nil
    Sync do |task|
      started = Stalls.now
      working = task.async do
        how == :timeout ? Timeout.timeout(after) { work.call } : work.call
      rescue Async::Stop, Timeout::Error => e
        raised = e
        raise if e.is_a?(Async::Stop)
      end
      if how == :stop
        sleep after
        working.stop
      end
      working.wait
      [raised, Stalls.now - started - after]
    end
  end

  # Each work the gem may be doing when its fiber stops, made ready before the clock
  # starts: a lambda that does it.
  def conversion
    store.write('slow.pdf', LongWork.slow_pdf)
    bytes = store.read('slow.pdf')
    -> { RubyLLM::FileStore::Native.convert_pdf(bytes) }
  end

  def read
    store.write('slow.pdf', LongWork.slow_pdf)
    -> { RubyLLM::FileStore::Tools::ReadFile.new(store).call(path: 'slow.pdf') }
  end

  # A search of 400 MB of text with a slow PDF among it, so it converts too.
  def search
    @store = LongWork.large_text_store(tmp_dir, 50, 8)
    store.write('slow.pdf', LongWork.slow_pdf)
    -> { LongWork.slow_search(store) }
  end

  # The ranked search's first question: an index built over 9 MB of text and a slow PDF.
  def rank_passages
    @store = LongWork.passages_store(tmp_dir, 1, 9)
    store.write('slow.pdf', LongWork.slow_pdf)
    -> { LongWork.rank(store) }
  end

  # A code run in the store's folder that opens it to everyone and sleeps: its host
  # must be killed and the folder given back before the stop is raised.
  def code_run
    skip "no sandbox here: #{RubyLLM::FileStore::Native.sandbox_problem}" if RubyLLM::FileStore::Native.sandbox_problem
    runner = RubyLLM::FileStore::CodeRunner.new(store, shell: true, timeout: 40)
    -> { runner.run(language: 'shell', code: 'chmod 777 .; sleep 30') }
  end

  # A wait for the folder's lock, which another process holds until the example ends.
  def lock_wait
    root = store.local_root
    @holder = IO.popen([RbConfig.ruby, '-e', 'File.open(ARGV[0]) { |f| f.flock(File::LOCK_EX); $stdout.puts "held"; $stdout.flush; sleep 60 }', root])
    expect(@holder.gets).to eq("held\n")
    -> { store.with_lock { :inside } }
  end

  def let_go
    return unless @holder

    Process.kill(:KILL, @holder.pid)
    @holder.close
    @holder = nil
  end

  # Each work, what it is called, and when it is stopped: a code run once it has
  # started (its sandbox may take a second to set up on a busy machine), the others at
  # once.
  works = { conversion: ['a conversion', 0.3], read: ['a read_file of a PDF', 0.3], search: ['a search', 0.3],
            rank_passages: ['a rank_passages', 0.3], code_run: ['a code run', 2],
            lock_wait: ["a wait for the folder's lock", 0.3] }
  works.each do |work, (label, after)|
    { stop: 'Task#stop', timeout: 'a Timeout' }.each do |how, name|
      it "ends #{label} stopped by #{name}, and leaves nothing behind" do
        raised, ended = stopped(how, after, &send(work))
        let_go
        expect(raised).to be_a(how == :stop ? Async::Stop : Timeout::Error)
        expect(ended).to be < ends_within
        expect(LeftBehind.after_stop(store)).to be_empty
        # And the store works on.
        expect(store.with_lock { store.write('after.txt', 'ok') && store.read('after.txt') }).to eq('ok')
      end
    end
  end
end
