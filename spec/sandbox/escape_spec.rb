# frozen_string_literal: true

require 'socket'
require 'etc'

# The escape suite: code a model could submit to run_code, trying to get out of the
# sandbox or past its limits. bin/test-sandbox runs it as root and again as an
# unprivileged user. Each example names the attack and asserts that it failed.
RSpec.describe 'The code sandbox under attack', if: ENV.fetch('RUBY_LLM_SANDBOX_SUITE', nil) do
  include TmpDirHelper

  secret = 'sk-escape-test-not-for-the-code'
  root = Process.uid.zero?

  let(:store) { RubyLLM.file_store.directory(File.join(tmp_dir, 'store')) }
  let(:limits) { {} }
  let(:timeout) { 10 }
  let(:written) { [] }
  let(:runner) do
    RubyLLM::FileStore::CodeRunner.new(store, python: [], ruby: true, shell: true, timeout:, limits:,
                                              on_write: ->(file) { written << file.path })
  end

  around do |example|
    saved = ENV.fetch('OPENAI_API_KEY', nil)
    ENV['OPENAI_API_KEY'] = secret
    example.run
  ensure
    saved ? ENV['OPENAI_API_KEY'] = saved : ENV.delete('OPENAI_API_KEY')
  end

  def run(code, language: 'shell', **options)
    runner.run(language:, code:, **options)
  end

  def python(code) = run(code, language: 'python')

  it "runs as #{root ? 'root' : 'an unprivileged user'}, with a sandbox that starts" do
    expect(RubyLLM::FileStore::Native.sandbox_problem).to be_nil
    expect(Process.uid.zero?).to eq(root)
  end

  describe "the parent's environment" do
    it 'is not in /proc/1/environ (bubblewrap, pid 1 in the sandbox), /proc/self/environ or env' do
      result = run('cat /proc/1/environ /proc/self/environ; echo; env; for f in /proc/[0-9]*/environ; ' \
                   'do cat $f; done; echo done')
      expect(result.stdout).to include('done').and include('PATH=')
      expect(result.to_s).not_to include(secret)
    end

    it "is not in the parent's /proc/<pid>/environ: the host's processes are not there" do
      result = run("cat /proc/#{Process.pid}/environ /proc/#{Process.ppid}/environ; ls /proc | grep -c '^[0-9]'")
      expect(result.to_s).not_to include(secret)
      expect(result.stdout.strip.to_i).to be < 5
    end

    it 'is not reachable through an inherited descriptor left open without close-on-exec' do
      File.write(File.join(tmp_dir, 'open.txt'), secret)
      io = File.open(File.join(tmp_dir, 'open.txt'))
      io.close_on_exec = false
      result = run("ls /proc/self/fd; cat /proc/self/fd/#{io.fileno}; cat <&#{io.fileno}")
      expect(result.to_s).not_to include(secret)
      expect(result.stdout.split).to eq(%w[0 1 2 3])
    ensure
      io&.close
    end
  end

  it 'cannot read /etc/shadow, /root, or a file beside the store' do
    File.write(File.join(tmp_dir, 'beside.txt'), secret)
    result = run("cat /etc/shadow; ls /root; cat ../beside.txt; cat #{File.join(tmp_dir, 'beside.txt')}; echo end")
    expect(result.stdout).to eq("end\n")
    expect(result.to_s).not_to include(secret)
  end

  it 'cannot write outside the run folder: /usr, /etc, /, /tmp of the host, the folder beside the store' do
    outside = File.join(tmp_dir, 'outside.txt')
    marker = "/tmp/ruby_llm_escape_#{Process.pid}"
    run("touch /usr/escape /etc/escape /escape #{outside} #{marker}; echo x > ../outside.txt")
    expect([outside, marker, '/usr/escape', '/etc/escape', '/escape'].select { |f| File.exist?(f) }).to be_empty
  end

  it 'has no capabilities: remounting /usr read-write fails, and /usr stays unwritten' do
    result = run('grep CapEff /proc/self/status; id -u; mount -o remount,bind,rw /usr && touch /usr/escape; ' \
                 'echo mount=$?')
    expect(result.stdout).to include("CapEff:\t0000000000000000").and include('mount=32')
    expect(result.stdout).not_to match(/^0$/)
    expect(File.exist?('/usr/escape')).to be(false)
  end

  it 'cannot mount anything: a cgroup hierarchy, a tmpfs, proc' do
    result = run('mkdir -p m; mount -t cgroup2 none m; echo $?; mount -t cgroup -o pids none m; echo $?; ' \
                 'mount -t tmpfs none m; echo $?; mount -t proc proc m; echo $?')
    expect(result.stdout.split).to eq(%w[32 32 32 32])
  end

  it 'cannot raise its own process limit: no cgroup files to write, none to mount' do
    result = run('ls /sys/fs/cgroup; echo 2000 > /sys/fs/cgroup/pids.max; echo $?; ' \
                 'mkdir -p c; mount -t cgroup2 none c && echo 2000 > c/pids.max; echo $?')
    expect(result.stdout.split).to eq(%w[2 32]).or eq(%w[1 32])
  end

  it 'cannot unshare a user, mount or network namespace of its own' do
    result = run('unshare -U true; echo $?; unshare -m true; echo $?; unshare -n true; echo $?; ' \
                 'unshare -U -r true; echo $?')
    expect(result.stdout.split).to all(eq('1'))
  end

  it 'cannot ptrace a process of the host, nor itself as pid 1: no process of bubblewrap is inside' do
    result = python(<<~PY)
      import ctypes, os
      libc = ctypes.CDLL(None, use_errno=True)
      for pid in [1, #{Process.pid}, #{Process.ppid}]:
          print(libc.ptrace(16, pid, 0, 0), ctypes.get_errno())
    PY
    expect(result.stdout.lines.map(&:split).map(&:first)).to eq(%w[-1 -1 -1])
  end

  it "cannot find a key in the host user's keyring" do
    add_key = 'import ctypes; libc = ctypes.CDLL(None, use_errno=True); ' \
              "print(libc.syscall(248, b'user', b'ruby_llm_escape', b'#{secret}', #{secret.size}, -4))"
    key = `python3 -c "#{add_key}"`.to_i
    expect(key).to be_positive
    result = python(<<~PY)
      import ctypes
      libc = ctypes.CDLL(None, use_errno=True)
      buf = ctypes.create_string_buffer(200)
      print(libc.syscall(250, 10, -4, b'user', b'ruby_llm_escape', 0))
      print(libc.syscall(250, 11, #{key}, buf, 200), buf.value)
    PY
    expect(result.stdout.lines.map { |l| l.split.first }).to eq(%w[-1 -1])
    expect(result.to_s).not_to include(secret)
  end

  it "cannot reach the host's 127.0.0.1, where a server listens" do
    server = TCPServer.new('127.0.0.1', 0)
    result = python("import socket\ntry:\n socket.create_connection(('127.0.0.1', #{server.addr[1]}), timeout=2)\n " \
                    "print('connected')\nexcept OSError as e:\n print('refused')")
    expect(result.stdout).to eq("refused\n")
    expect(server.accept_nonblock(exception: false)).to eq(:wait_readable)
  ensure
    server&.close
  end

  describe 'limits' do
    let(:limits) { { processes: 32, memory_bytes: 512 << 20, tmp_bytes: 32 << 20, file_bytes: 8 << 20 } }

    it 'contains a fork bomb' do
      started = Time.now
      result = run('b() { b | b & }; b; sleep 1; echo over')
      expect(result).not_to be_timed_out
      expect(Time.now - started).to be < 8
      expect(result.stderr).to match(/fork|Resource temporarily unavailable/)
    end

    it 'keeps one process under memory_bytes' do
      result = python("try:\n  b = bytearray(1 << 30); print('got it')\nexcept MemoryError:\n  print('refused')")
      expect(result.stdout).to eq("refused\n")
    end

    it 'keeps the whole run under memory_bytes: five processes of 200 MB each are killed' do
      unless memory_limited?
        # bin/test-sandbox's delegated run gives this user a cgroup: there the ceiling must hold.
        raise 'no memory cgroup, though this run was given one' if ENV['RUBY_LLM_SANDBOX_DELEGATED']

        skip 'no memory cgroup can be made for this user here (see README "Running code")'
      end
      code = "import os, time\nfor _ in range(4):\n  if os.fork() == 0: break\nb = bytearray(200 << 20)\n" \
             "for i in range(0, len(b), 4096): b[i] = 1\ntime.sleep(2)\nprint('held', flush=True)"
      result = python(code)
      expect(result.stdout.scan('held').size).to be < 5
    end

    it 'holds memory files (memfd_create) to memory_bytes: a cgroup charges them, or there are none' do
      result = python(<<~PY)
        import os
        held = 0
        try:
            for i in range(4):
                fd = os.memfd_create('m%d' % i)
                for _ in range(256):
                    held += os.write(fd, b'x' * (1 << 20))
                    if held % (32 << 20) == 0:
                        print('held', held, flush=True)
        except OSError as e:
            print('refused', e.errno, flush=True)
      PY
      held = result.stdout.scan(/^held (\d+)/).flatten.map(&:to_i).max.to_i
      expect(held).to be <= 512 << 20
      expect(result.stdout).to include("refused #{Errno::ENOSYS::Errno}") unless memory_limited?
    end

    it "holds at most 100,000 names in the sandbox's /tmp, whose size does not count them, in either mode" do
      copy = RubyLLM::FileStore::CodeRunner.new(RubyLLM.file_store.memory, python: [], timeout:, limits:)
      [runner, copy].each do |each_runner|
        result = each_runner.run(language: 'python', code: <<~PY)
          import os
          made = 0
          try:
              while made < 120000:
                  open('/tmp/%d' % made, 'w').close()
                  made += 1
          except OSError as e:
              print('stopped', e.errno)
          print('made', made)
        PY
        expect(result.stdout[/^made (\d+)/, 1].to_i).to be_between(99_000, 100_000)
        expect(result.stdout).to include("stopped #{Errno::ENOSPC::Errno}")
      end
    end

    it "fills the sandbox's /tmp only to tmp_bytes" do
      result = run('head -c 100000000 /dev/zero > /tmp/fill; echo $?; du -k /tmp/fill | cut -f1')
      status, kilobytes = result.stdout.split.map(&:to_i)
      expect(status).not_to eq(0)
      expect(kilobytes).to be <= 32 << 10
    end

    it 'writes no file in the workspace past file_bytes' do
      run('head -c 100000000 /dev/zero > big.bin')
      expect(File.size(File.join(store.local_root, 'big.bin'))).to be <= 8 << 20
    end

    it 'keeps only the first output_bytes of a huge output, quickly' do
      started = Time.now
      result = run('head -c 200000000 /dev/zero | tr "\\0" x')
      expect(result.stdout.bytesize).to eq(20_000)
      expect(result.to_s).to include('200000000 bytes in all')
      expect(Time.now - started).to be < 9
    end
  end

  describe 'the timeout' do
    let(:timeout) { 1 }

    it 'kills children that left with setsid and nohup' do
      run('setsid sh -c "sleep 3; echo x > late1.txt" & nohup sh -c "sleep 3; echo x > late2.txt" & ' \
          '(trap "" HUP TERM; sleep 3; echo x > late3.txt) & sleep 30')
      sleep 4
      expect(Dir.children(store.local_root).grep(/late/)).to be_empty
      expect(`ps -eo args`.lines.grep(/^sleep 3$/)).to be_empty
    end

    # A store whose every read and write takes half a second, as a remote one may.
    let(:slow) do
      Class.new(RubyLLM::FileStore::Memory) do
        def read(path) = sleep(0.5).then { super }
        def write(path, content, **options) = sleep(0.5).then { super }
      end.new
    end

    it 'holds for the whole call in copy mode: copying in and saving back come out of it' do
      4.times { |i| slow.write("in#{i}.txt", 'x') }
      runner = RubyLLM::FileStore::CodeRunner.new(slow, shell: true, timeout: 3)
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      result = runner.run(language: 'shell', code: 'for i in 1 2 3 4 5 6; do echo x > out$i.txt; done; sleep 30',
                          files: %w[in0.txt in1.txt in2.txt in3.txt])
      took = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
      expect(result).to be_timed_out
      # Copying in took 2 s of the 3; saving back stops at the end of them, one write past it at most.
      expect(took).to be < 3 + 0.5 + 0.5
      expect(result.to_s).to match(/more files the run wrote were not saved: the run's \d+ s were up/)
    end

    it 'holds for the whole call in workspace mode: a run making folders until its end leaves time to remove them' do
      runner = RubyLLM::FileStore::CodeRunner.new(store, python: [], timeout: 5, limits: { save_files: 500 })
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      result = runner.run(language: 'python', code: "import os\ni = 0\nwhile True:\n  os.mkdir('d%07d' % i)\n  i += 1")
      took = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
      expect(result).to be_timed_out
      # Removing the folders past save_files once took over 70 s of a 5 s call (3 ms a folder, ext4 with discard).
      expect(took).to be < 5 + 1.5
      # Those past it were set aside, and are removed after the call.
      Timeout.timeout(120) { sleep 0.1 until Dir.empty?(File.join(store.local_root, '.ruby_llm_removing')) }
      expect((Dir.children(store.local_root) - GemsFolders::NAMES).size).to be <= 500
    end

    # 900,000 hard links, names without an inode, which the run's count of names did not see, once kept a call
    # of timeout 20 for 44 to 54 s, the store's lock held throughout.
    it 'holds for the whole call in workspace mode: a run making hard links until its end makes none' do
      runner = RubyLLM::FileStore::CodeRunner.new(store, python: [], timeout: 5)
      store.write('a.txt', 'x')
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      result = runner.run(language: 'python', code: "import os\ni = 0\nwhile True:\n  try: os.link('a.txt', 'l%07d' % i)\n  " \
                                                    "except OSError as e: print(e.errno); break\n  i += 1")
      took = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
      expect(took).to be < 5 + 1.5
      expect(result.stdout).to eq("#{Errno::EPERM::Errno}\n")
      expect(Dir.children(store.local_root).reject { |name| name.start_with?('.') }).to eq(['a.txt'])
    end

    it 'holds for the whole call in workspace mode: folders too deep or too long to keep cost a rename, not a removal' do
      runner = RubyLLM::FileStore::CodeRunner.new(store, python: [], timeout: 5)
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      result = runner.run(language: 'python', code: FolderChains.code(60))
      took = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
      expect(result.to_s).to include('with paths longer than the chat\'s files take (4096 bytes), were removed')
      # Removing the 6,200 folders past the longest path took 20 s of a 5 s call (3 ms a folder, ext4 with discard).
      expect(took).to be < 5 + 1.5
      Timeout.timeout(120) { sleep 0.1 until Dir.empty?(File.join(store.local_root, '.ruby_llm_removing')) }
      expect(Dir.glob('**/*', base: store.local_root).map(&:bytesize).max).to be <= 4096
    end
  end

  describe 'mounts' do
    let(:skills) { File.join(tmp_dir, 'skills').tap { |dir| FileUtils.mkdir_p(dir) } }
    let(:runner) do
      RubyLLM::FileStore::CodeRunner.new(store, shell: true, timeout: 10, mounts: { 'tools/skills' => skills })
    end

    it 'cannot write into a mounted folder' do
      run('echo x > tools/skills/new.md')
      expect(Dir.children(skills)).to be_empty
    end

    it 'a parent folder replaced by a link out of the store is not followed on the next run' do
      outside = File.join(tmp_dir, 'elsewhere').tap { |dir| FileUtils.mkdir_p(dir) }
      result = run("rm -rf tools; ln -s #{outside} tools")
      expect(result.to_s).to start_with('Exit code 0')
      second = run('ls -la tools/')
      expect(second.to_s).to include("tools/skills is this folder's own")
      expect(Dir.children(outside)).to be_empty
    end
  end

  describe 'the lock file' do
    it 'replaced by a link does not break later runs, with_lock or write_file' do
      run('rm -f .ruby_llm_file_store.lock; ln -s /nonexistent/x .ruby_llm_file_store.lock; ' \
          'ln -s .ruby_llm_file_store.lock loop 2>/dev/null; true')
      expect(run('echo again').stdout).to eq("again\n")
      expect { store.with_lock { store.write('after.txt', 'x') } }.not_to raise_error
    end
  end

  describe 'names and lists' do
    # 3,000 files take seconds on a busy machine's disk, in or out of the sandbox.
    let(:timeout) { 40 }

    it 'reports names the store refuses and keeps stdout, the lists and after_file_write for the rest' do
      result = python("open('good.txt', 'w').write('x'); open('bad\\nname.txt', 'w').write('x')\n" \
                      "open('back\\\\slash.txt', 'w').write('x'); open(b'caf\\xe9.txt', 'w').write('x')\nprint('out')")
      text = result.to_s
      expect(stream_in(text)).to eq('out')
      expect(text).to include('Created: "good.txt"')
      expect(text).to include('"bad\\nname.txt"').and include('"back\\\\slash.txt"').and include("caf\uFFFD.txt")
      expect(written).to eq(%w[good.txt])
    end

    it 'caps the lists of a run creating 3,000 files, and calls after_file_write for the listed ones only' do
      result = run('i=0; while [ $i -lt 3000 ]; do : > f$i; i=$((i+1)); done')
      expect(result.to_s).to include('and 2900 more')
      expect(result.to_s.bytesize).to be < 10_000
      expect(written.size).to eq(100)
    end

    it 'applies max_file_size to what a run writes in workspace mode too, without keeping it' do
      store.max_file_size = 1000
      result = run('head -c 5000 /dev/zero > big.bin; echo small > small.txt')
      expect(result.to_s).to include('Created: "small.txt"').and include('"big.bin"')
      expect(store.exist?('big.bin')).to be(false)
    end

    it 'applies max_file_size in copy mode, reading no file over it' do
      memory = RubyLLM.file_store.memory(max_file_size: 1000)
      copy = RubyLLM::FileStore::CodeRunner.new(memory, shell: true, timeout: 10)
      result = copy.run(language: 'shell', code: 'head -c 5000 /dev/zero > big.bin; echo small > small.txt')
      expect(result.to_s).to include('Created: "small.txt"').and include('"big.bin"')
      expect(memory.exist?('big.bin')).to be(false)
    end
  end

  def memory_limited?
    RubyLLM::FileStore::Native.run(argv: %w[true], dir: tmp_dir, sandbox: true, timeout: 5.0)[:memory_limited]
  end
end
