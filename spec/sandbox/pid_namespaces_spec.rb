# frozen_string_literal: true

# The escape suite, part nine: two apps that are each PID 1 of a PID namespace of
# their own (two containers without an init) and share the host's cgroups. Each
# app's runs make their cgroups in the same folders: a name taken from a pid would be
# the other app's too (a run left without its limits), and a sweep that took "no
# such pid here" for a dead app would remove the other app's fresh cgroups (a run
# failing with ENODEV). bin/test-sandbox runs it as root; an unprivileged user can
# make no PID namespace, and skips it.
RSpec.describe 'The code sandbox in two apps that are each PID 1 and share the cgroups',
               if: ENV.fetch('RUBY_LLM_SANDBOX_SUITE', nil) do
  include GemRuby
  include TmpDirHelper
  include Waiting

  unshare = %w[unshare --pid --fork --mount-proc]

  # Each app's runs at once: two that write past memory_bytes into their /tmp, which
  # only the memory cgroup counts (the tmpfs's own size is twice it), and two that
  # spin for a second of wall time at cpu_percent 5, which only the cpu cgroup
  # holds to 0.05 s of CPU. Three rounds of them; each run that did not end as its
  # limits say is named.
  let(:app) do
    <<~RUBY
      raise 'not PID 1' unless Process.pid == 1
      store = RubyLLM.file_store.memory
      fill = RubyLLM::FileStore::CodeRunner.new(store, python: [], timeout: 60, limits: { memory_bytes: 128 << 20 })
      spin = RubyLLM::FileStore::CodeRunner.new(store, python: [], timeout: 60, limits: { cpu_percent: 5 })
      fill_code = <<~PY
        held = 0
        with open('/tmp/fill', 'wb') as f:
            while held < (192 << 20):
                f.write(b'x' * (1 << 20))
                held += 1 << 20
        print('filled', flush=True)
      PY
      spin_code = <<~PY
        import time
        start, cpu = time.monotonic(), time.process_time()
        while time.monotonic() - start < 1: pass
        print('cpu %.3f' % (time.process_time() - cpu))
      PY
      within = {
        fill => ->(result) { !result.success? && !result.stdout.include?('filled') },
        spin => ->(result) { result.success? && result.stdout[/cpu (\\S+)/, 1].to_f < 0.15 }
      }
      wrong = Array.new(3) do
        [fill, fill, spin, spin].map do |runner|
          Thread.new do
            result = runner.run(language: 'python', code: runner.equal?(fill) ? fill_code : spin_code)
            within[runner].call(result) ? nil : result.to_s.lines.first(8).join
          rescue StandardError => e
            "\#{e.class}: \#{e.message}"
          end
        end.map(&:value)
      end.flatten.compact
      puts "pid \#{Process.pid}: \#{12 - wrong.size} of 12 runs within their limits", *wrong
    RUBY
  end

  it 'holds every run of both apps, three rounds of four at once each, to its memory and CPU limits' do
    skip 'needs unshare --pid (root)' unless system(*unshare, 'true', err: File::NULL)
    ran = RubyLLM::FileStore::Native.run(argv: %w[true], dir: tmp_dir, sandbox: true, timeout: 5.0)
    skip 'no memory and cpu cgroup can be made for a run here' unless ran[:memory_limited] && ran[:cpu_limited]

    outputs = Array.new(2) { Thread.new { ruby(app, prefix: unshare, seconds: 180) } }.map(&:value)
    expect(outputs).to eq(["pid 1: 12 of 12 runs within their limits\n"] * 2)
  end

  it 'leaves the copy-mode run folder of a live app whose pid the sweeping app cannot see' do
    skip 'needs unshare --pid (root)' unless system(*unshare, 'true', err: File::NULL)

    runner = RubyLLM::FileStore::CodeRunner.new(RubyLLM.file_store.memory, shell: true, timeout: 30)
    running = Thread.new { runner.run(language: 'shell', code: 'sleep 3; echo done').stdout }
    folder = wait_until(10) { Dir.glob(File.join(Dir.tmpdir, "ruby_llm_run*-#{Process.pid}-*")).first }
    # Its first copy-mode run sweeps the temporary folder for those an app killed mid-run left.
    other = ruby(<<~RUBY, prefix: unshare)
      runner = RubyLLM::FileStore::CodeRunner.new(RubyLLM.file_store.memory, shell: true, timeout: 10)
      puts runner.run(language: 'shell', code: 'echo other').stdout
    RUBY
    expect([other, File.directory?(folder), running.value]).to eq(["other\n", true, "done\n"])
  end
end
