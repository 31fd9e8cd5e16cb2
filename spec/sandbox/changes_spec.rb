# frozen_string_literal: true

# The escape suite, part four: what a run's result says it changed, and what it
# leaves in the folder's metadata and shape for later runs. A change is told by
# content, so neither a restored mtime hides one nor a touch fakes one; user.*
# attributes go with the repair; a run's folders count against save_files. Also the
# i386 entry into the kernel, which the seccomp filter must cover. bin/test-sandbox
# runs it as root, as an unprivileged user, and as that user in delegated cgroups.
RSpec.describe 'The code sandbox against changes hidden or faked', if: ENV.fetch('RUBY_LLM_SANDBOX_SUITE', nil) do
  include TmpDirHelper

  let(:store) { RubyLLM.file_store.directory(File.join(tmp_dir, 'store')) }
  let(:limits) { {} }
  let(:timeout) { 20 }
  let(:written) { [] }
  let(:on_write) { ->(file) { written << file.path } }
  let(:runner) do
    RubyLLM::FileStore::CodeRunner.new(store, python: [], shell: true, timeout:, limits:, on_write:)
  end
  let(:memory) { RubyLLM.file_store.memory }
  let(:copy_runner) do
    RubyLLM::FileStore::CodeRunner.new(memory, python: [], shell: true, timeout: 20, limits:, on_write:)
  end

  def python(code) = runner.run(language: 'python', code:)

  # Rewrites one file in the same bytes with its mtime set back, one in new bytes of
  # the same size with its mtime set back, and gives the others a chmod, a touch
  # and a user.* attribute (which the repair removes).
  let(:touches) { <<~PY }
    import os
    def keep_mtime(path, change):
        st = os.stat(path)
        change()
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    keep_mtime('same.csv', lambda: open('same.csv', 'w').write('a,b\\n'))
    keep_mtime('real.csv', lambda: open('real.csv', 'w').write('c,d\\n'))
    os.chmod('chmod.csv', 0o600)
    os.utime('touch.csv')
    try:
        os.setxattr('attr.csv', 'user.mime_type', b'text/html')
        print('attr set')
    except OSError as e:
        print('attr', e)
  PY
  let(:names) { %w[same.csv real.csv chmod.csv touch.csv attr.csv] }

  describe 'a change is told by content' do
    it 'in workspace mode: same bytes, a chmod, a touch or an attribute are no change; new bytes are' do
      names.each { |name| store.write(name, "a,b\n") }
      result = python(touches)
      expect(result.stdout).to start_with('attr')
      expect(File.read(File.join(store.local_root, 'real.csv'))).to eq("c,d\n")
      expect(result.changed).to eq(['real.csv'])
      expect(result.created).to be_empty
      expect(written).to eq(['real.csv'])
      expect(result.to_s).to include('Changed: "real.csv"')
      expect(result.to_s).not_to include('same.csv')
    end

    it "in copy mode: only the file whose bytes differ from the store's is saved back" do
      names.each { |name| memory.write(name, "a,b\n") }
      result = copy_runner.run(language: 'python', code: touches, files: names)
      expect(result.changed).to eq(['real.csv'])
      expect(written).to eq(['real.csv'])
      expect(names.to_h { |name| [name, memory.read(name)] }).to eq(
        names.to_h { |name| [name, name == 'real.csv' ? "c,d\n" : "a,b\n"] }
      )
    end
  end

  describe 'user.* extended attributes a run sets' do
    it 'are removed after the run, hidden names and the folder itself included, and the file is not changed' do
      store.write('kept.txt', 'x')
      result = python(<<~PY)
        import os
        os.makedirs('.cache/d')
        open('.cache/d/f', 'w').close()
        made = 0
        for path in ('kept.txt', '.cache/d', '.cache/d/f', '.'):
            try:
                os.setxattr(path, 'user.origin', b'x' * 1000)
                made += 1
            except OSError:
                pass
        print('set', made)
      PY
      listed = %w[kept.txt .cache/d .cache/d/f .].to_h do |path|
        [path, IO.popen(['python3', '-c', 'import os, sys; print(*os.listxattr(sys.argv[1]))',
                         File.join(store.local_root, path)], &:read).split.grep(/^user\./)]
      end
      skip "this file system takes no user.* attributes (#{result.stdout.strip})" if result.stdout == "set 0\n"
      expect(result.stdout).to eq("set 4\n")
      expect(listed.values).to all(be_empty)
      expect(result.changed).to be_empty
    end
  end

  describe "the store's own user.ruby_llm.* attributes" do
    it 'keep their content types through a run: one the run forged goes, one it changed or removed is set back' do
      store.write('notes.md', "# x\n", content_type: 'text/x-custom')
      store.write('table.txt', "a,b\n", content_type: 'text/csv')
      store.write('plain.txt', 'x')
      result = python(<<~PY)
        import os
        done = []
        for path, value in (('table.txt', b'text/html'), ('plain.txt', b'application/x-run')):
            try:
                os.setxattr(path, 'user.ruby_llm.content_type', value)
                done.append(path)
            except OSError as e:
                print(path, e)
        os.removexattr('notes.md', 'user.ruby_llm.content_type')
        print('set', len(done))
      PY
      skip "this file system takes no user.* attributes (#{result.stdout.strip})" if result.stdout.include?('set 0')
      expect(result.stdout).to end_with("set 2\n")
      expect(%w[notes.md table.txt plain.txt].map { |path| store[path].content_type })
        .to eq(%w[text/x-custom text/csv text/plain])
      expect(store.list.map(&:content_type)).to eq(%w[text/x-custom text/plain text/csv])
      expect(result.changed).to be_empty
    end
  end

  describe 'inode flags a run sets (chattr)' do
    it 'are cleared after the run, hidden names and the folder itself included, and the file is not changed' do
      store.write('kept.txt', 'x')
      result = runner.run(language: 'shell', code: <<~SH)
        mkdir .cache && echo y > .cache/f && echo z > made.txt
        chattr +S +A +d kept.txt .cache .cache/f made.txt . 2>&1; echo "chattr $?"
      SH
      skip "this file system takes no inode flags (#{result.stdout.strip})" unless result.stdout.end_with?("chattr 0\n")
      flags = %w[kept.txt .cache .cache/f made.txt .].to_h do |path|
        [path, IO.popen(['lsattr', '-d', File.join(store.local_root, path)], &:read).split.first.delete('-e')]
      end
      expect(flags).to eq(%w[kept.txt .cache .cache/f made.txt .].to_h { |path| [path, ''] })
      expect(result.changed).to be_empty
      expect(result.created).to eq(['made.txt'])
    end
  end

  describe 'many empty folders' do
    let(:limits) { { save_files: 20 } }
    # Time to remove the folders past save_files, which the timeout counts.
    let(:timeout) { 60 }

    # The best wall time of +runs+ runs of +code+.
    def best(code, runs: 3)
      Array.new(runs) do
        started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
        runner.run(language: 'shell', code:)
        Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
      end.min
    end

    it 'count against save_files: past it they are removed, with a note, and later runs stay as fast' do
      plain = best('true')
      result = python("import os\nfor i in range(2500):\n  os.makedirs(f'w/{i // 50}/{i}')\nopen('w/0/f', 'w').close()")
      expect(result.to_s).to start_with('Exit code 0')
      expect(result.created).to eq(['w/0/f'])
      expect(result.to_s).to include('Past the 20 new files and folders a run may leave, so removed:')
      folders = Dir.glob('**/', base: store.local_root).size
      expect(folders).to be <= 20
      expect(store.list.map(&:path)).to eq(['w/0/f'])
      # With the 2,550 folders left, each later run walked them all: 7 times a plain run.
      expect(best('true')).to be < plain * 4
    end
  end

  describe "i386 system calls (int 0x80) on x86_64, which the filter's own architecture does not match" do
    # keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0) through int 0x80
    # (i386's number 288), as machine code on an executable page, in a child whose
    # end the parent prints.
    let(:int80) { <<~PY }
      import ctypes, mmap, os
      code = (b'\\x53' + b'\\xb8' + (288).to_bytes(4, 'little') + b'\\xbb\\x00\\x00\\x00\\x00'
              + b'\\xb9\\xfd\\xff\\xff\\xff' + b'\\x31\\xd2' + b'\\xcd\\x80' + b'\\x5b' + b'\\xc3')
      page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
      page.write(code)
      call = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(page)))
      pid = os.fork()
      if pid == 0:
          print('returned', call(), flush=True)
          os._exit(0)
      _, status = os.waitpid(pid, 0)
      print('signal', os.WTERMSIG(status) if os.WIFSIGNALED(status) else 'none')
    PY

    it 'kills the process making a denied call such as keyctl, which the same code outside the sandbox makes' do
      skip 'not an x86_64 machine' unless RbConfig::CONFIG['host_cpu'] == 'x86_64'
      bare = IO.popen(['python3', '-c', int80], &:read)
      skip "this kernel has no i386 entry (#{bare.inspect})" unless bare.match?(/\Areturned -?\d+\nsignal none\n\z/)
      result = python(int80)
      expect(result.stdout).to eq("signal #{Signal.list.fetch('SYS')}\n")
    end
  end
end
