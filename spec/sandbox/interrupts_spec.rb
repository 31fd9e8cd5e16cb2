# frozen_string_literal: true

require 'timeout'

# The escape suite, part five: a Ruby interrupt during a run (Timeout.timeout
# around run_code, as an app bounds a tool call) ends the run then, not when the
# run's own timeout would have. bin/test-sandbox runs it as root, as an
# unprivileged user, and as that user in delegated cgroups.
RSpec.describe 'The code sandbox interrupted by Ruby', if: ENV.fetch('RUBY_LLM_SANDBOX_SUITE', nil) do
  include TmpDirHelper

  let(:store) { RubyLLM.file_store.directory(File.join(tmp_dir, 'store')) }
  let(:memory) { RubyLLM.file_store.memory }

  def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)

  # Seconds from the start of a call of +runner+ running +code+ to the Timeout
  # of +seconds+ reaching the caller.
  def interrupted_after(runner, code, seconds)
    started = now
    expect { Timeout.timeout(seconds) { runner.run(language: 'shell', code:) } }.to raise_error(Timeout::Error)
    now - started
  end

  # Whether a process of the host runs `sleep +marker+`.
  def sleeping?(marker)
    Dir.glob('/proc/[0-9]*/cmdline').any? do |file|
      File.read(file) == "sleep\0#{marker}\0"
    rescue SystemCallError
      false
    end
  end

  # Once took effect 7 to 38 s late, when the run would have ended anyway.
  it 'in workspace mode: a Timeout lands within a second of its deadline, and the store is free and whole' do
    store.write('report.txt', 'x')
    runner = RubyLLM::FileStore::CodeRunner.new(store, shell: true, timeout: 40)
    marker = "41.#{rand(1_000_000)}"
    took = interrupted_after(runner, "echo y > made.txt; chmod 777 .; sleep #{marker}", 3)
    expect(took).to be < 3 + 1
    expect(sleeping?(marker)).to be(false)
    stat = File.stat(store.local_root)
    expect([stat.uid, stat.mode & 0o022]).to eq([Process.uid, 0])
    after = runner.run(language: 'shell', code: 'cat report.txt made.txt')
    expect(after.stdout).to eq("xy\n"), after.to_s
  end

  it 'a signal whose trap raises nothing (a child ending, a USR1 handler) does not stop a run' do
    runner = RubyLLM::FileStore::CodeRunner.new(store, shell: true, timeout: 40)
    saved = trap('USR1') { nil }
    signals = Thread.new do
      10.times do
        sleep 0.2
        Process.kill('USR1', Process.pid)
      end
    end
    result = runner.run(language: 'shell', code: 'sleep 3; echo done')
    expect([result.timed_out?, result.stdout]).to eq([false, "done\n"])
  ensure
    signals&.join
    trap('USR1', saved || 'DEFAULT')
  end

  # The run's host sees the app's end of its socket close, stops the run and gives the
  # folder back; the supervisor, ending with the app, waits for it. It was left lent
  # to the run's uid (a root app's) until the next run, and writable by that uid.
  it 'gives the folder back at once, and leaves nothing running, when the app is killed mid-run' do
    root = store.local_root
    store.write('report.txt', 'x')
    marker = "43.#{rand(1_000_000)}"
    lib = File.expand_path('../../lib', __dir__)
    app = spawn(RbConfig.ruby, '-I', lib, '-rruby_llm/file_store', '-e', <<~RUBY)
      store = RubyLLM.file_store.directory(#{root.inspect})
      RubyLLM::FileStore::CodeRunner.new(store, shell: true, timeout: 40).run(language: 'shell', code: 'chmod 777 .; sleep #{marker}')
    RUBY
    Timeout.timeout(30) { sleep 0.05 until sleeping?(marker) }
    Process.kill(:KILL, app)
    Process.wait(app)
    killed = now
    # Given back: an unprivileged app's folder is never lent, so its mode is the sign
    # (the run made it 0777), a root app's its owner too.
    given_back = -> { File.stat(root).uid == Process.uid && File.stat(root).mode & 0o022 == 0 }
    Timeout.timeout(20) { sleep 0.05 while sleeping?(marker) || !given_back.call }
    stat = File.stat(root)
    expect([stat.uid, stat.mode & 0o022, File.stat(File.join(root, 'report.txt')).uid]).to eq([Process.uid, 0, Process.uid])
    expect(now - killed).to be < 5
  end

  it 'in copy mode: a Timeout lands within a second of its deadline' do
    runner = RubyLLM::FileStore::CodeRunner.new(memory, shell: true, timeout: 40)
    marker = "42.#{rand(1_000_000)}"
    took = interrupted_after(runner, "sleep #{marker}", 3)
    expect(took).to be < 3 + 1
    expect(sleeping?(marker)).to be(false)
    expect(runner.run(language: 'shell', code: 'echo ok').stdout).to eq("ok\n")
  end
end
