# frozen_string_literal: true

# The escape suite, part seven: the helper that repairs and looks at the folder
# after a run has memory and CPU of its own, so the run's memory_bytes and
# cpu_percent, which the app chose for the code, move neither what the look
# costs the app nor when the call ends. bin/test-sandbox runs it as root, as an
# unprivileged user, and as that user in delegated cgroups (where the ceilings
# hold; without a cgroup the helper has none to be held by).
RSpec.describe 'The code sandbox: the helper after a run', :slow, if: ENV.fetch('RUBY_LLM_SANDBOX_SUITE', nil) do
  def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  def status_kb(field) = File.read('/proc/self/status')[/^#{field}:\s+(\d+)/, 1].to_i

  # How much the app's peak resident memory grew, in KB, while the block ran.
  def peak_growth_kb
    File.write('/proc/self/clear_refs', '5')
    before = status_kb('VmRSS')
    yield
    status_kb('VmHWM') - before
  end

  # A folder store of +folders+ times 1,500 files of 100-byte paths, on a tmpfs,
  # made in a child process, so the suite's own heap (which every fork of a later
  # run copies the page tables of) does not grow by it.
  def big_store(shm, folders: 100)
    store = RubyLLM.file_store.directory(File.join(shm, 'store'))
    maker = fork do
      folders.times do |folder|
        dir = File.join(store.local_root, format('f%03d', folder))
        FileUtils.mkdir_p(dir)
        1500.times { |i| File.write(File.join(dir, format('%05d', i) + ('n' * 90)), '') }
      end
      exit!(0)
    end
    Process.wait(maker)
    store
  end

  def run_in(store, code, **limits)
    runner = RubyLLM::FileStore::CodeRunner.new(store, shell: true, timeout: 300, limits:)
    started = now
    result = runner.run(language: 'shell', code:)
    [result, now - started]
  end

  around do |example|
    @shm = Dir.mktmpdir('ruby_llm_helper', '/dev/shm')
    example.run
  ensure
    FileUtils.rm_rf(@shm)
  end

  # The helper once shared the run's 300 MiB with the 256 MiB the run left in its
  # /tmp, was killed, and the app looked itself: 77 MiB, and no word of it.
  it 'in a 150,000-file store, a run filling its /tmp under memory_bytes of 300 MiB costs the app what a plain run does' do
    store = big_store(@shm)
    result = nil
    grown = peak_growth_kb do
      result, = run_in(store, 'head -c 250000000 /dev/zero > /tmp/fill; echo x > made.txt', memory_bytes: 300 << 20)
    end
    expect(result.to_s).to include('Created: "made.txt"')
    expect(result.to_s).not_to include('the app did its work')
    expect(grown).to be < 16 << 10
  end

  # The helper once had the run's share of a core: at cpu_percent 10 a plain
  # `true` in a 150,000-file store ended 40 to 47 s into a call of timeout 30,
  # 26 to 29 s at 100. At 1 % (which a busy machine's fair share does not hide)
  # the look at 30,000 files took 10 times as long as at 100 %.
  it 'in a 30,000-file store, a run of cpu_percent 1 ends about when one of 100 does' do
    store = big_store(@shm, folders: 20)
    run_in(store, 'true')
    _, whole = run_in(store, 'true', cpu_percent: 100)
    result, hundredth = run_in(store, 'true', cpu_percent: 1)
    expect(result.exit_code).to eq(0)
    expect(hundredth).to be < (whole * 2) + 2, "cpu_percent 1: #{hundredth.round(1)} s, 100: #{whole.round(1)} s"
  end
end
