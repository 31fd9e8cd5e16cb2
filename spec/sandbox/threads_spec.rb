# frozen_string_literal: true

# The escape suite, part four: runs made at once by the threads of one app, as Puma
# makes them (five threads by default). bin/test-sandbox runs it as root, as an
# unprivileged user, and as that user in delegated cgroups. A hang here is forever,
# so the threads run in a child process of their own group, which the example ends
# when the time is up.
RSpec.describe 'The code sandbox under concurrent runs', if: ENV.fetch('RUBY_LLM_SANDBOX_SUITE', nil) do
  include TmpDirHelper

  threads = 8
  runs = 10
  let(:threads) { threads }
  let(:runs) { runs }

  let(:memory) { RubyLLM.file_store.memory }

  def runner_for(store) = RubyLLM::FileStore::CodeRunner.new(store, shell: true, timeout: 20)

  # Each run sleeps a fifth of a second, so that the runs' own time, which
  # threads share, outweighs the sandbox's start, which takes the machine's cores.
  def code(line) = "sleep 0.2; echo #{line}"

  # Runs +runs+ runs of +code+ on each of +threads+ threads, with the runner
  # +runner_of+ gives each thread, in a child process; returns the seconds they
  # took, or nil if they had not ended after +deadline+ seconds (then the child and
  # every process it forked are killed).
  def concurrent_seconds(deadline:, &runner_of)
    reader, writer = IO.pipe
    app = fork do
      reader.close
      Process.setpgid(0, 0)
      writer.write(timed_runs(runner_of))
      exit!(0)
    end
    writer.close
    waited = wait_until(app, now + deadline)
    told = reader.read_nonblock(64, exception: false)
    told.is_a?(String) && told != 'wrong' ? told.to_f : nil
  ensure
    reader&.close
    end_group(app) if app && !waited
  end

  def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)

  # In the child: the seconds all runs took, or 'wrong' if one printed the wrong line.
  def timed_runs(runner_of)
    started = now
    outputs = Array.new(threads) do |i|
      Thread.new { Array.new(runs) { |j| runner_of.call(i).run(language: 'shell', code: code("#{i}-#{j}")).stdout } }
    end.flat_map(&:value)
    expected = (0...threads).flat_map { |i| (0...runs).map { |j| "#{i}-#{j}\n" } }
    outputs == expected ? (now - started).to_s : 'wrong'
  end

  # Whether +app+ ended before +ended+ (a monotonic time).
  def wait_until(app, ended)
    sleep 0.05 until (waited = Process.wait(app, Process::WNOHANG)) || now > ended
    waited
  end

  # Kills the child and every process in its group (the tmpfs makers a hang leaves).
  def end_group(app)
    Process.kill(:KILL, -app)
    Process.wait(app)
  rescue Errno::ESRCH, Errno::ECHILD
    nil
  end

  # One run's time, alone: the best of three, after one to warm up.
  def one_run(runner)
    runner.run(language: 'shell', code: code(1))
    Array.new(3) do
      started = now
      runner.run(language: 'shell', code: code(1))
      now - started
    end.min
  end

  # The threads' runs at once end in about +runs+ runs' time: twice that, and a
  # few seconds for the sandbox's starts on a busy 2-core machine, at most. The
  # child is killed past four times the bound, so that a hang ends the example.
  def bound(one) = (runs * one * 2) + 3

  it "in copy mode: #{threads} threads of #{runs} runs each on one memory store end in about #{runs} runs' time" do
    one = one_run(runner_for(memory))
    shared = runner_for(memory)
    took = concurrent_seconds(deadline: bound(one) * 4) { shared }
    expect(took).not_to be_nil, "#{threads} threads of #{runs} copy-mode runs had not ended after " \
                                "#{(bound(one) * 4).round(1)} s (one run: #{one.round(3)} s)"
    expect(took).to be < bound(one)
  end

  it "in workspace mode: #{threads} threads of #{runs} runs each, one folder store each, end in about #{runs} runs' time" do
    stores = Array.new(threads) { |i| RubyLLM.file_store.directory(File.join(tmp_dir, "store#{i}")) }
    runners = stores.map { |store| runner_for(store) }
    one = one_run(runners.first)
    took = concurrent_seconds(deadline: bound(one) * 4) { |i| runners[i] }
    expect(took).not_to be_nil, "#{threads} threads of #{runs} workspace runs had not ended after " \
                                "#{(bound(one) * 4).round(1)} s (one run: #{one.round(3)} s)"
    expect(took).to be < bound(one)
  end
end
