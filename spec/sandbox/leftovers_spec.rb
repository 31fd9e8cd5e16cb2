# frozen_string_literal: true

require 'etc'

# The escape suite, part two: code that tries to leave something behind after its
# run (a setuid file, a lasting denial of service, a full disk, a full memory) or
# to reach the host's kernel through a system call, and the incidents known from
# tools of this kind. bin/test-sandbox runs it as root, as an unprivileged user,
# and as that user in delegated cgroups. Each example asserts that the attack failed.
RSpec.describe 'The code sandbox against what a run leaves behind', if: ENV.fetch('RUBY_LLM_SANDBOX_SUITE', nil) do
  include TmpDirHelper

  root = Process.uid.zero?

  let(:store) { RubyLLM.file_store.directory(File.join(tmp_dir, 'store')) }
  let(:limits) { {} }
  let(:timeout) { 20 }
  let(:written) { [] }
  let(:runner) do
    RubyLLM::FileStore::CodeRunner.new(store, python: [], ruby: true, shell: true, timeout:, limits:,
                                              on_write: ->(file) { written << file.path })
  end
  let(:memory) { RubyLLM.file_store.memory(max_file_size: 30 << 20) }
  let(:copy_runner) { RubyLLM::FileStore::CodeRunner.new(memory, python: [], shell: true, timeout: 20, limits:) }

  def run(code, language: 'shell') = runner.run(language:, code:)
  def python(code) = run(code, language: 'python')

  # Every name below +dir+, hidden ones included, with its lstat.
  def everything(dir)
    Dir.glob('**/*', File::FNM_DOTMATCH, base: dir).reject { |p| p.end_with?('/.', '/..') || p == '.' || GemsFolders.include?(p) }
       .to_h { |path| [path, File.lstat(File.join(dir, path))] }
  end

  # TMPDIR pointed at a folder of the example's own, so copy mode's run folders
  # can be counted without another process's.
  def with_own_tmpdir
    own = File.join(tmp_dir, 'tmp').tap { |dir| FileUtils.mkdir_p(dir) }
    saved = ENV.fetch('TMPDIR', nil)
    ENV['TMPDIR'] = own
    yield own
  ensure
    saved ? ENV['TMPDIR'] = saved : ENV.delete('TMPDIR')
  end

  # Whether a process of the host runs `sleep +marker+`.
  def sleeping?(marker)
    Dir.glob('/proc/[0-9]*/cmdline').any? do |file|
      File.read(file) == "sleep\0#{marker}\0"
    rescue SystemCallError
      false
    end
  end

  describe 'a root app killed mid-run, while its folder is lent to the run' do
    it "leaves a store that the next open gives back to its owner, with the folder's mode" do
      skip "only a root app lends its folder to the run's uid; this one runs as uid #{Process.uid}" unless root
      store.write('report.txt', 'x')
      File.chmod(0o750, store.local_root)
      marker = "32.#{rand(1_000_000)}"
      app = fork do
        run("mkdir made; sleep #{marker}")
        exit!
      end
      Timeout.timeout(10) { sleep 0.05 until sleeping?(marker) }
      Process.kill(:KILL, app)
      Process.wait(app)
      Timeout.timeout(10) { sleep 0.05 while sleeping?(marker) }
      RubyLLM.file_store.directory(store.local_root)
      owners = everything(store.local_root).transform_values { |stat| [stat.uid, stat.gid] }
      expect(owners.keys).to include('report.txt', 'made')
      expect(owners.values.uniq).to eq([[0, 0]])
      expect(File.stat(store.local_root).then { |stat| [stat.uid, stat.mode & 0o7777] }).to eq([0, 0o750])
    end
  end

  describe 'a root app opening its store while a run of another thread or process has the folder lent' do
    it 'leaves the folder lent until the run ends: the run goes on writing' do
      skip "only a root app lends its folder to the run's uid; this one runs as uid #{Process.uid}" unless root
      marker = "2.#{rand(1_000_000)}"
      thread = Thread.new { run("echo a > a.txt; sleep #{marker}; echo b > b.txt; echo done") }
      Timeout.timeout(10) { sleep 0.05 until sleeping?(marker) }
      RubyLLM.file_store.directory(store.local_root)
      result = thread.value
      expect(result.stdout).to eq("done\n")
      expect(%w[a.txt b.txt].map { |name| store.exist?(name) }).to eq([true, true])
    end
  end

  describe "the sandbox check's folder" do
    it 'is not a name another user can take first: folders made at the names it once used change nothing' do
      taken = (0..20).map { |n| File.join(Dir.tmpdir, "ruby_llm_check_#{Process.pid}_#{n}") }
      taken.each { |dir| FileUtils.mkdir_p(dir) }
      expect(RubyLLM::FileStore::Native.sandbox_problem).to be_nil
    ensure
      taken&.each { |dir| FileUtils.rm_rf(dir) }
    end
  end

  describe 'a setuid binary left in the workspace' do
    it 'is refused by the kernel, and no file the run made keeps S_ISUID or S_ISGID, hidden ones included' do
      code = <<~SH
        cp /bin/sh sh; chmod 4755 sh; echo "chmod=$?"
        mkdir -p .cache; cp /bin/sh .cache/.t; chmod 6755 .cache/.t; chmod u+s .cache/.t; echo "hidden=$?"
        python3 -c 'import os; os.close(os.open("made", os.O_CREAT | os.O_WRONLY, 0o4755))'; echo "open=$?"
        mkdir d; chmod g+s d; echo "dir=$?"
      SH
      result = run(code)
      expect(result.stdout.split).to eq(%w[chmod=1 hidden=1 open=1 dir=1])
      found = everything(store.local_root)
      expect(found.keys).to include('sh', '.cache/.t', 'd')
      expect(found.select { |_, stat| (stat.mode & 0o6000).nonzero? }.keys).to be_empty
    end

    it "is never owned by root on the host while the run goes on, and belongs to the app's user after" do
      thread = Thread.new { run('cp /bin/sh shell; echo ready > ready.txt; sleep 3') }
      ready = File.join(store.local_root, 'ready.txt')
      sleep 0.05 until File.exist?(ready) || !thread.alive?
      owners = %w[shell ready.txt].map { |name| File.lstat(File.join(store.local_root, name)).uid }
      thread.join
      expected = root ? RubyLLM::FileStore::Native::RUN_UID : Process.uid
      expect(owners).to all(eq(expected))
      expect(owners).not_to include(0)
      expect(everything(store.local_root).values.map(&:uid).uniq).to eq([Process.uid])
    end
  end

  describe 'the system calls a run may not make' do
    it "takes no host-wide slot for the run's length: io_setup, io_submit and inotify fail, /dev/ptmx opens no pty" do
      result = python(<<~PY)
        import ctypes, os
        libc = ctypes.CDLL(None, use_errno=True)
        def call(*args):
            ctypes.set_errno(0)
            rc = libc.syscall(*args)
            return rc, ctypes.get_errno()
        ctx = ctypes.c_ulong(0)
        print('io_setup', *call(206, 1, ctypes.byref(ctx)))
        print('io_submit', *call(209, 0, 0, 0))
        print('inotify_init1', *call(294, 0))
        print('inotify_init', *call(253))
        try:
            os.open('/dev/ptmx', os.O_RDWR | os.O_NOCTTY)
            print('ptmx opened')
        except OSError as e:
            print('ptmx', e.errno)
      PY
      calls = result.stdout.lines.to_h { |line| line.split.then { |name, *rest| [name, rest] } }
      expect(calls.slice('io_setup', 'io_submit', 'inotify_init1', 'inotify_init').values)
        .to all(eq(['-1', Errno::ENOSYS::Errno.to_s]))
      expect(calls).to include('ptmx')
      expect(calls).not_to include('ptmx opened')
    end

    it 'shows a seccomp filter, and keyctl, add_key, request_key, io_uring, bpf, perf_event_open, ' \
       'userfaultfd, ptrace, mount, umount, setns, unshare of a namespace, setuid modes and TIOCSTI all fail' do
      result = python(<<~PY)
        import ctypes, os
        libc = ctypes.CDLL(None, use_errno=True)
        def call(*args):
            ctypes.set_errno(0)
            rc = libc.syscall(*args)
            return rc, ctypes.get_errno()
        buf = ctypes.create_string_buffer(512)
        calls = {
          'keyctl': call(250, 0, -3, 0), 'add_key': call(248, b'user', b'k', b'v', 1, -3),
          'request_key': call(249, b'user', b'k', 0, 0), 'io_uring_setup': call(425, 1, buf),
          'bpf': call(321, 0, buf, 64), 'perf_event_open': call(298, buf, 0, -1, -1, 0),
          'userfaultfd': call(323, 0), 'ptrace': call(101, 16, 1, 0, 0),
          'mount': call(165, b'none', b'/tmp', b'tmpfs', 0, 0), 'umount2': call(166, b'/tmp', 0),
          'setns': call(308, 0, 0), 'unshare_user': call(272, 0x10000000),
          'unshare_mount': call(272, 0x00020000), 'fchmodat_setuid': call(268, -100, b'/tmp', 0o4755),
          'openat_setgid': call(257, -100, b'/tmp/x', 0o101, 0o2755),
          'tiocsti': call(16, 0, 0x5412, b'x'), 'clone3': call(435, 0, 0),
        }
        for name, (rc, errno) in calls.items():
            print('call', name, rc, errno)
        print(open('/proc/self/status').read())
      PY
      lines = result.stdout.lines.map(&:split)
      calls = lines.select { |line| line.first == 'call' }.to_h { |_, name, rc, errno| [name, [rc.to_i, errno.to_i]] }
      expect(calls.size).to eq(17)
      expect(calls.except('clone3').values).to all(eq([-1, 1]))
      expect(calls['clone3']).to eq([-1, 38])
      expect(result.stdout).to match(/^Seccomp:\s+2$/).and match(/^NoNewPrivs:\s+1$/)
    end

    it "cannot read the host's keys through /proc/keys" do
      key = `python3 -c "import ctypes; print(ctypes.CDLL(None).syscall(248, b'user', b'ruby_llm_listed', b'x', 1, -4))"`
      expect(key.to_i).to be_positive
      result = run('cat /proc/keys /proc/key-users; echo end')
      expect(result.stdout).to eq("end\n")
    end
  end

  describe 'a lasting denial of service' do
    # Time to remove what the runs make past the limits, which the timeout counts
    # (on an ext4 mounted with discard, 4 ms a folder).
    let(:timeout) { 90 }

    around do |example|
      # Past 256 descriptors, a walk that opened one per folder before visiting any failed.
      soft, hard = Process.getrlimit(:NOFILE)
      Process.setrlimit(:NOFILE, 256, hard)
      example.run
    ensure
      Process.setrlimit(:NOFILE, soft, hard)
    end

    it 'through a wide tree: 1,100 folders break neither later runs nor list_files' do
      first = python("import os\nfor i in range(1100):\n  os.makedirs(f'w/d{i}')\n  open(f'w/d{i}/f', 'w').close()")
      expect(first.to_s).to start_with('Exit code 0')
      expect(first.to_s).to include('and 1000 more')
      second = run('echo again')
      expect(second.stdout).to eq("again\n")
      expect(store.list('w').size).to eq(1100)
    end

    it 'through a deep chain: 300 levels of folders go past 128, with a note, and break neither later runs ' \
       'nor list_files' do
      first = python("import os\nos.makedirs('/'.join(['d'] * 300))\nopen('/'.join(['d'] * 300) + '/f', 'w').close()\n" \
                     "open('top.txt', 'w').close()")
      expect(first.to_s).to include('Created: "top.txt"')
      expect(first.to_s).to include('Folders 128 levels down, or with paths longer than the chat\'s files take ' \
                                    '(4096 bytes), were removed with all in them, out of reach of every limit: ' \
                                    '"d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/"… (128 levels).')
      expect(run('echo again').stdout).to eq("again\n")
      expect(store.list.map(&:path)).to contain_exactly('top.txt')
    end

    # Kilobytes in /proc/self/status's +field+.
    def status_kb(field) = File.read('/proc/self/status')[/^#{field}:\s+(\d+)/, 1].to_i

    it 'through chains of folders with long names: nothing past the longest path stays, and the app stays small' do
      # Resets the peak of this process's resident memory (VmHWM) to what it holds now.
      File.write('/proc/self/clear_refs', '5')
      before = status_kb('VmRSS')
      result = python(FolderChains.code(100))
      grown = status_kb('VmHWM') - before
      expect(result.stdout).to eq("made\n")
      expect(result.to_s).to include('with paths longer than the chat\'s files take (4096 bytes), were removed')
      deepest = everything(store.local_root).keys.map(&:bytesize).max
      expect(deepest).to be <= 4096
      # 12,000 folders of paths up to 30 KB once cost the app 584 MB to look at.
      expect(grown).to be < 64 << 10
    end

    # How much the app's peak resident memory grew, in KB, while the block ran.
    def peak_growth_kb
      File.write('/proc/self/clear_refs', '5')
      before = status_kb('VmRSS')
      yield
      status_kb('VmHWM') - before
    end

    describe 'in tens of thousands of folders, looked at by a helper in the run\'s cgroups' do
      # docs/running_code.md states 32 MB for what any run leaves; these chains cost the app about 7 MB.
      it 'in copy mode: 96,000 folders in chains of 120 levels grow the app by less than 16 MB' do
        result = nil
        grown = peak_growth_kb { result = copy_runner.run(language: 'python', code: FolderChains.code(800)) }
        expect(result.stdout).to eq("made\n")
        # The app once looked at every name itself: 57 MB here, 4.45 GB before the longest paths were removed.
        expect(grown).to be < 16 << 10
        expect(result.to_s).to include('or 4 MiB of their paths')
      end

      it 'in workspace mode: 48,000 folders in chains of 120 levels grow the app by less than 16 MB' do
        shm = Dir.mktmpdir('ruby_llm_chains', '/dev/shm')
        shm_store = RubyLLM.file_store.directory(File.join(shm, 'store'))
        runner = RubyLLM::FileStore::CodeRunner.new(shm_store, python: [], timeout: 120)
        result = nil
        grown = peak_growth_kb { result = runner.run(language: 'python', code: FolderChains.code(400)) }
        expect(result.stdout).to eq("made\n")
        # The app once looked at every name itself: 28 MB here.
        expect(grown).to be < 16 << 10
        expect(everything(shm_store.local_root).keys.map(&:bytesize).sum).to be <= 4 << 20
      ensure
        FileUtils.rm_rf(shm) if shm
      end
    end

    it 'through a folder of 150,000 names: the look before the run is kept on disk, and the app stays small' do
      shm = Dir.mktmpdir('ruby_llm_names', '/dev/shm')
      big = RubyLLM.file_store.directory(File.join(shm, 'store'))
      100.times do |folder|
        dir = File.join(big.local_root, format('f%03d', folder))
        FileUtils.mkdir_p(dir)
        1500.times { |i| File.write(File.join(dir, format('%05d', i) + ('n' * 90)), '') }
      end
      big.write('f000/notes.txt', 'old')
      runner = RubyLLM::FileStore::CodeRunner.new(big, shell: true, timeout: 120)
      result = nil
      grown = peak_growth_kb { result = runner.run(language: 'shell', code: 'echo new > f000/notes.txt; echo x > made.txt') }
      expect(result.exit_code).to eq(0)
      expect(result.to_s).to include('Created: "made.txt"').and include('Changed: "f000/notes.txt"')
      # Kept in the app's memory, the look cost it 64 MB here.
      expect(grown).to be < 16 << 10
    ensure
      FileUtils.rm_rf(shm) if shm
    end

    context 'with new_names of 2,000' do
      let(:limits) { { new_names: 2000 } }
      # Removing 18,000 folders: 72 s on an ext4 mounted with discard.
      let(:timeout) { 300 }

      it 'through 20,000 folders of 4 KB paths: the repair leaves new_names of them, and the app stays small' do
        File.write('/proc/self/clear_refs', '5')
        before = status_kb('VmRSS')
        result = python(<<~PY)
          import os
          fd = os.open('.', os.O_RDONLY)
          for level in range(15):
              name = 'c%03d' % level + 'x' * 246
              os.mkdir(name, dir_fd=fd)
              fd = os.open(name, os.O_RDONLY, dir_fd=fd)
          for i in range(20000):
              os.mkdir('n%05d' % i + 'x' * 200, dir_fd=fd)
          print('made')
        PY
        grown = status_kb('VmHWM') - before
        expect(result.stdout).to eq("made\n")
        expect(result.to_s).to include('The run left more than 2000 new files, folders and links')
        expect(everything(store.local_root).size).to be <= 2000
        # With every name looked at, they cost the app 158 MB.
        expect(grown).to be < 64 << 10
      end
    end

    it 'through what lies past the walk: big files, a 0777 folder and a 0666 file 130 levels down do not stay' do
      first = python(<<~PY)
        import os
        deep = '/'.join(['d'] * 130)
        os.makedirs(deep)
        for i in range(4):
            open(f'{deep}/big{i}', 'wb').truncate(200 << 20)
        open(f'{deep}/w', 'w').close()
        os.chmod(f'{deep}/w', 0o666)
        os.chmod(deep, 0o777)
        open('top.txt', 'w').close()
      PY
      expect(first.to_s).to include('Folders 128 levels down, or with paths longer')
      found = everything(store.local_root)
      expect(found.keys.map { |path| path.count('/') + 1 }.max).to be <= 128
      expect(found.reject { |_, stat| stat.symlink? || (stat.mode & 0o022).zero? }.keys).to be_empty
      expect(store.list.map(&:path)).to eq(['top.txt'])
    end

    it 'through chmod 0 on the workspace and on a folder in it' do
      store.write('keep.txt', 'kept')
      mode = File.stat(store.local_root).mode & 0o7777
      first = run('mkdir sub; echo x > sub/f; chmod 0 sub; chmod 0 .')
      expect(first.exit_code).to eq(0)
      expect(File.stat(store.local_root).mode & 0o7777).to eq(mode)
      expect(run('cat keep.txt sub/f').stdout).to eq("keptx\n")
      expect(store.read('sub/f')).to eq("x\n")
      expect { RubyLLM.file_store.directory(store.local_root).write('after.txt', 'y') }.not_to raise_error
    end

    context 'with folder_names of 300' do
      let(:limits) { { folder_names: 300 } }

      it 'through names piled up run after run: past folder_names the code does not run, saying so' do
        2.times do |round|
          made = python("import os\nos.mkdir('.p#{round}')\nfor i in range(200):\n  open(f'.p#{round}/{i}', 'w').close()")
          expect(made.exit_code).to eq(0)
        end
        expect(everything(store.local_root).size).to eq(402)
        expect { run('echo ran > ran.txt') }
          .to raise_error(RubyLLM::FileStore::SandboxError, /holds more than 300 files, folders and links/)
        expect(store.exist?('ran.txt')).to be(false)
        FileUtils.rm_rf(File.join(store.local_root, '.p1'))
        expect(run('echo ran').stdout).to eq("ran\n")
      end
    end
  end

  describe "copy mode's run folders" do
    it 'are removed after a chain of folders longer than PATH_MAX, and the result still returns' do
      with_own_tmpdir do |own|
        code = "import os\nfor _ in range(40):\n  os.mkdir('d' * 200); os.chdir('d' * 200)\n" \
               "open('deep.txt', 'w').write('x'); os.symlink('/etc', 'etc'); os.chmod('.', 0)\nprint('deep')"
        result = copy_runner.run(language: 'python', code:)
        expect(result.stdout).to eq("deep\n")
        expect(Dir.children(own)).to be_empty
      end
    end

    it 'hold at most folder_bytes, a tmpfs whoever the app runs as, and go after the run either way' do
      limits[:folder_bytes] = 16 << 20
      with_own_tmpdir do |own|
        result = copy_runner.run(language: 'shell', code: 'head -c 40000000 /dev/zero > fill.bin; echo $?; ' \
                                                          'du -k fill.bin | cut -f1; stat -f -c %T .')
        status, kilobytes, kind = result.stdout.split
        expect(status.to_i).not_to eq(0)
        expect(kilobytes.to_i).to be <= 16 << 10
        expect(kind).to eq('tmpfs')
        expect(Dir.children(own)).to be_empty
      end
    end

    it 'hold at most folder_files files, folders and links, whatever their size' do
      limits[:folder_files] = 500
      code = <<~PYTHON
        made = 0
        try:
          for i in range(5000):
            open('f%d' % i, 'w').close()
            made += 1
        except OSError as e:
          print(e.strerror)
        print(made)
      PYTHON
      result = copy_runner.run(language: 'python', code:)
      why, made = result.stdout.lines.map(&:chomp)
      expect(why).to eq('No space left on device')
      expect(made.to_i).to be_between(400, 500)
    end

    it "are on no mount of the host's, and the host's disk gets none of the bytes" do
      limits[:folder_bytes] = 16 << 20
      with_own_tmpdir do |own|
        before = File.read('/proc/self/mountinfo').scan(/ruby_llm_run/).size
        seen = nil
        code = 'head -c 8000000 /dev/zero > fill.bin; sleep 0.3'
        watcher = Thread.new do
          sleep 0.02 until (dir = Dir.children(own).first)
          sleep 0.2 # the run is writing by now
          seen = [File.read('/proc/self/mountinfo').scan(/ruby_llm_run/).size,
                  Dir.children(File.join(own, dir))]
        end
        copy_runner.run(language: 'shell', code:)
        watcher.join(5)
        expect(seen).to eq([before, []])
        expect(memory.read('fill.bin').bytesize).to eq(8_000_000)
      end
    end

    # Whether a process of the host runs `sleep marker`.
    # The run cgroups named for the process +pid+ below this process's own.
    def run_cgroups(pid)
      File.readlines('/proc/self/cgroup').flat_map do |line|
        _, controllers, path = line.chomp.split(':', 3)
        roots = if controllers.empty?
                  %w[/sys/fs/cgroup /sys/fs/cgroup/unified]
                else
                  controllers.split(',').map { |c| "/sys/fs/cgroup/#{c}" }
                end
        roots.flat_map { |root| Dir.glob(File.join(root, path, "ruby_llm_run_#{pid}_*")) }
      end.uniq
    end

    it 'left by an app killed mid-run go at the next run, and its cgroups with them' do
      with_own_tmpdir do |own|
        marker = "33.#{rand(1_000_000)}"
        app = fork do
          copy_runner.run(language: 'shell', code: "sleep #{marker}")
          exit!
        end
        Timeout.timeout(10) { sleep 0.05 until sleeping?(marker) }
        Process.kill(:KILL, app)
        Process.wait(app)
        Timeout.timeout(10) { sleep 0.05 while sleeping?(marker) }
        expect(Dir.children(own).grep(/\Aruby_llm_run/).size).to eq(1)
        copy_runner.run(language: 'shell', code: 'true')
        expect(Dir.children(own).grep(/\Aruby_llm_run/)).to be_empty
        expect(run_cgroups(app)).to be_empty
      end
    end

    it 'leave nothing mounted and no process behind when the app is killed mid-run' do
      with_own_tmpdir do
        marker = "31.#{rand(1_000_000)}"
        app = fork do
          copy_runner.run(language: 'shell', code: "head -c 8000000 /dev/zero > fill.bin; sleep #{marker}")
          exit!
        end
        Timeout.timeout(10) { sleep 0.05 until sleeping?(marker) }
        Process.kill(:KILL, app)
        Process.wait(app)
        Timeout.timeout(10) { sleep 0.05 while sleeping?(marker) }
        expect(File.read('/proc/self/mountinfo')).not_to include('ruby_llm_run')
        expect(File.read('/proc/1/mountinfo')).not_to include('ruby_llm_run') if File.readable?('/proc/1/mountinfo')
      end
    end
  end

  describe 'the bytes a run leaves' do
    let(:limits) { { save_bytes: 60 << 20 } }

    def rss_kb = File.read('/proc/self/status')[/^VmRSS:\s+(\d+)/, 1].to_i

    it 'in copy mode: 100 sparse files of 25 MB save at most save_bytes, read before the budget is spent' do
      before = rss_kb
      result = copy_runner.run(language: 'shell', code: 'i=0; while [ $i -lt 100 ]; do truncate -s 25M s$i; ' \
                                                        'i=$((i+1)); done')
      expect(memory.list.sum(&:byte_size)).to be <= 60 << 20
      expect(memory.list.size).to eq(2)
      expect(result.to_s).to include('Past the 62914560 bytes a run may leave in all')
      expect(rss_kb - before).to be < 400 << 10
    end

    it 'in workspace mode: files past save_bytes are removed, with a note' do
      result = run('i=0; while [ $i -lt 100 ]; do truncate -s 25M s$i; i=$((i+1)); done')
      expect(store.list.sum(&:byte_size)).to be <= 60 << 20
      expect(result.to_s).to include('Past the 62914560 bytes a run may leave in all, so removed')
    end
  end

  describe '/dev' do
    it 'is read-only, and /dev/shm holds at most its 64 MB' do
      result = run('touch /dev/evil; echo dev=$?; head -c 200000000 /dev/zero > /dev/shm/fill; echo shm=$?; ' \
                   'du -k /dev/shm/fill | cut -f1')
      dev, shm, kilobytes = result.stdout.split
      expect([dev, shm]).to eq(%w[dev=1 shm=1])
      expect(kilobytes.to_i).to be <= 64 << 10
    end
  end

  describe 'the CPU' do
    let(:limits) { { cpu_seconds: 2 } }

    it "is held to the run's share: four busy loops get one core in all, or each its CPU seconds" do
      if RubyLLM::FileStore::Native.run(argv: %w[true], dir: tmp_dir, sandbox: true, timeout: 5.0)[:cpu_limited]
        code = "import os, time\nfor _ in range(4):\n  if os.fork() == 0:\n    end = time.time() + 3\n    " \
               "while time.time() < end: pass\n    os._exit(0)\nfor _ in range(4): os.wait()\n" \
               "t = os.times()\nprint(t.children_user + t.children_system)"
        # Three seconds of wall time at one core: about 3 s of CPU, where two free
        # cores would give 6.
        expect(python(code).stdout.to_f).to be < 4.0
      else
        raise 'no cpu cgroup, though this run was given one' if ENV['RUBY_LLM_SANDBOX_DELEGATED']

        # Without a cpu cgroup, RLIMIT_CPU stops each loop at its 2 CPU seconds.
        result = python('while True: pass')
        expect(result).not_to be_timed_out
        # bubblewrap exits 128 + the signal that ended the code.
        expect([result.signal, result.exit_code]).to include(24).or include(9).or include(152).or include(137)
      end
    end
  end

  describe 'a change hidden by a restored mtime' do
    it 'is still found, and after_file_write is called' do
      store.write('data.csv', "a,b\n")
      result = python("import os\nst = os.stat('data.csv')\nopen('data.csv', 'w').write('c,d\\n')\n" \
                      "os.utime('data.csv', ns=(st.st_atime_ns, st.st_mtime_ns))")
      expect(File.read(File.join(store.local_root, 'data.csv'))).to eq("c,d\n")
      expect(result.changed).to eq(['data.csv'])
      expect(written).to eq(['data.csv'])
    end
  end

  describe 'known incidents in tools of this kind' do
    it 'a model-chosen working directory (CVE-2025-59532): there is none to choose, and / stays read-only' do
      expect { runner.run(language: 'shell', code: 'touch x', cwd: '/etc') }.to raise_error(ArgumentError)
      result = run('cd /etc && touch evil; cd /usr && touch evil; echo done')
      expect(result.stdout).to eq("done\n")
      expect(File.exist?('/etc/evil') || File.exist?('/usr/evil')).to be(false)
    end

    it 'a ../ in a file name the sandbox reports (GHSA-qrm5-r67f-6692) never writes outside the store' do
      outside = File.join(tmp_dir, 'outside').tap { |dir| FileUtils.mkdir_p(dir) }
      code = "import os\nos.makedirs('a', exist_ok=True)\nopen('a/x..%2F..%2Fx', 'w').write('x')\n" \
             "open('b..\\\\..\\\\y', 'w').write('y')\nos.symlink('#{outside}', 'out')\n" \
             "open('dots...', 'w').write('dots')"
      result = copy_runner.run(language: 'python', code:)
      expect(memory.list.map(&:path)).to all(satisfy { |path| !path.split('/').include?('..') })
      expect(memory.list.map(&:path)).to contain_exactly('dots...', 'a/x..%2F..%2Fx')
      expect(result.to_s).to include('"b..\\\\..\\\\y"')
      expect(Dir.children(outside)).to be_empty
      expect(Dir.children(tmp_dir)).to contain_exactly('outside', 'store').or contain_exactly('outside')
    end

    it 'a prefix check where dir-evil passes for dir (CVE-2025-53110): the sibling is not there' do
      evil = "#{store.local_root}-evil"
      FileUtils.mkdir_p(evil)
      File.write(File.join(evil, 'secret.txt'), 'sibling secret')
      result = run("cat #{evil}/secret.txt; cat ../store-evil/secret.txt; ls #{evil}; echo > #{evil}/w; echo end")
      expect(result.stdout).to eq("end\n")
      expect(result.to_s).not_to include('sibling secret')
      expect(Dir.children(evil)).to eq(['secret.txt'])
    end

    it 'a symlinked intermediate folder (CVE-2025-53109) is never followed by the store or the run' do
      outside = File.join(tmp_dir, 'elsewhere').tap { |dir| FileUtils.mkdir_p(dir) }
      run("ln -s #{outside} linked; ln -s /etc etc")
      expect { store.write('linked/x.txt', 'x') }.to raise_error(RubyLLM::FileStore::Error)
      second = run('echo y > linked/y.txt; echo z > etc/z; ls linked/; echo end')
      expect(second.stdout).to end_with("end\n")
      expect(Dir.children(outside)).to be_empty
      expect(File.exist?('/etc/z')).to be(false)
      expect(store.list.map(&:path)).to be_empty
    end

    it 'a protected path missing when the run starts (CVE-2026-25725): the lock file made by the code ' \
       'breaks nothing' do
      lock = File.join(store.local_root, '.ruby_llm_file_store.lock')
      FileUtils.rm_f(lock)
      run('rm -f .ruby_llm_file_store.lock; mkfifo .ruby_llm_file_store.lock 2>/dev/null || ' \
          'ln -s /etc/passwd .ruby_llm_file_store.lock; cp /bin/sh .ruby_llm_file_store.lock.sh; ' \
          'chmod 4755 .ruby_llm_file_store.lock.sh; true')
      passwd = File.read('/etc/passwd')
      expect(run('echo again').stdout).to eq("again\n")
      expect { store.with_lock { store.write('after.txt', 'x') } }.not_to raise_error
      expect(File.read('/etc/passwd')).to eq(passwd)
      expect(File.stat(File.join(store.local_root, '.ruby_llm_file_store.lock.sh')).mode & 0o6000).to eq(0)
    end
  end
end
