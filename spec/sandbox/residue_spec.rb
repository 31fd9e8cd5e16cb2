# frozen_string_literal: true

require 'timeout'

# The escape suite, part three: what a run leaves in the workspace for the app or
# for another user of the host to trip over (hidden files past the budget, folders
# others may write, special files, links out, file capabilities), and system calls
# with the same effect as the ones the filter denies. bin/test-sandbox runs it as
# root, as an unprivileged user, and as that user in delegated cgroups. Each example
# asserts that the attack failed.
RSpec.describe 'The code sandbox against what a run leaves for others', if: ENV.fetch('RUBY_LLM_SANDBOX_SUITE', nil) do
  include TmpDirHelper

  let(:store) { RubyLLM.file_store.directory(File.join(tmp_dir, 'store')) }
  let(:limits) { {} }
  let(:runner) do
    RubyLLM::FileStore::CodeRunner.new(store, python: [], shell: true, timeout: 20, limits:)
  end

  def run(code, language: 'shell') = runner.run(language:, code:)
  def python(code) = run(code, language: 'python')

  # Every name below the store's folder, hidden ones included, with its lstat.
  def everything
    Dir.glob('**/*', File::FNM_DOTMATCH, base: store.local_root)
       .reject { |p| p.end_with?('/.', '/..') || p == '.' || GemsFolders.include?(p) }
       .to_h { |path| [path, File.lstat(File.join(store.local_root, path))] }
  end

  describe 'files under hidden or refused names' do
    let(:limits) { { save_bytes: 60 << 20 } }

    it 'count against save_bytes after the listed files, and past it are removed, with a note' do
      result = run("truncate -s 25M seen.bin; mkdir .h; for n in a b c d; do truncate -s 25M .h/$n; done; \
                    truncate -s 25M .big 'back\\slash' \"$(printf 'caf\\351')\"")
      kept = everything.select { |_, stat| stat.file? }
      expect(kept.values.sum(&:size)).to be <= 60 << 20
      expect(kept.keys).to include('seen.bin', '.big')
      expect(result.created).to eq(['seen.bin'])
      expect(result.to_s).to include('Under hidden or refused names, over this store\'s limit')
      expect(result.to_s).to include('".h/a"', '"back\\\\slash"', "\"caf\u{fffd}\"")
    end

    it 'over max_file_size are removed, hidden ones included' do
      small = RubyLLM.file_store.directory(File.join(tmp_dir, 'small'), max_file_size: 1 << 20)
      runner = RubyLLM::FileStore::CodeRunner.new(small, shell: true, timeout: 20)
      runner.run(language: 'shell', code: 'mkdir .cache; truncate -s 2M .cache/blob; echo x > .cache/small')
      expect(Dir.children(File.join(small.local_root, '.cache'))).to eq(['small'])
    end
  end

  describe 'files under hidden names, run after run' do
    let(:limits) { { save_files: 50, save_bytes: 60 << 20 } }

    it 'count against save_files and save_bytes with those the folder already holds: six runs pile up nothing' do
      store.write('notes.txt', 'kept')
      results = Array.new(6) do |i|
        run("mkdir -p .h; for n in $(seq 30); do : > .h/r#{i}_$n; done; truncate -s 25M .h/big#{i}; echo ok")
      end
      expect(results.map(&:stdout).uniq).to eq(["ok\n"])
      hidden = everything.select { |path, stat| stat.file? && path.start_with?('.h/') }
      expect(hidden.size).to be <= 50
      expect(hidden.values.sum(&:size)).to be <= 60 << 20
      expect(store.read('notes.txt')).to eq('kept')
      expect(results.last.to_s).to include('so removed')
    end
  end

  describe 'a huge number of small files' do
    let(:limits) { { save_files: 50 } }

    it 'keeps the first save_files new files a run leaves, hidden ones included, and removes the rest' do
      store.write('old.txt', 'kept')
      result = python("import os\nos.mkdir('m'); os.mkdir('.h')\nfor i in range(120):\n  " \
                      "open(f'm/{i:03}', 'w').close(); open(f'.h/{i:03}', 'w').close()\n" \
                      "open('old.txt', 'a').write('!')")
      files = everything.select { |_, stat| stat.file? }.keys
      expect(files.size).to eq(51)
      expect(files).to include('old.txt', 'm/049')
      expect(files.grep(/^\.h/)).to be_empty
      expect(result.created.size).to eq(50)
      expect(result.changed).to eq(['old.txt'])
      expect(result.to_s).to include('Past the 50 new files a run may leave, so removed: "m/050"')
      expect(run('echo again').stdout).to eq("again\n")
    end
  end

  it "leaves nothing the host's other users may write: no folder or file with group or other write access" do
    python(<<~PY)
      import os, struct
      os.makedirs('pub/.deep'); os.chmod('pub', 0o1777); os.chmod('pub/.deep', 0o777)
      for name in ('w.txt', '.w', 'pub/.deep/x'):
          open(name, 'w').close(); os.chmod(name, 0o666)
      open('acl.txt', 'w').close()
      entry = lambda tag, perm, who: struct.pack('<HHI', tag, perm, who)
      acl = struct.pack('<I', 2) + entry(1, 6, 2**32 - 1) + entry(2, 6, os.getuid()) + entry(4, 4, 2**32 - 1) \\
          + entry(0x10, 6, 2**32 - 1) + entry(0x20, 4, 2**32 - 1)
      os.mkdir('shared')
      for path, name in (('acl.txt', 'access'), ('shared', 'default'), ('.', 'default')):
          try:
              os.setxattr(path, 'system.posix_acl_' + name, acl)
          except OSError:
              pass
    PY
    writable = everything.reject { |_, stat| stat.symlink? }.select { |_, stat| (stat.mode & 0o022).nonzero? }
    expect(writable.keys).to be_empty
    expect(everything.keys).to include('pub', 'pub/.deep/x', '.w', 'acl.txt')
    store.write('shared/later.txt', 'x')
    store.write('top.txt', 'x')
    expect(%w[acl.txt shared shared/later.txt top.txt .].flat_map { |path| acls(path) }).to be_empty
  end

  # The POSIX ACLs on +path+ in the store, read by the host's Python.
  def acls(path)
    listed = IO.popen(['python3', '-c', 'import os, sys; print(*os.listxattr(sys.argv[1], follow_symlinks=False))',
                       File.join(store.local_root, path)], &:read)
    listed.split.grep(/posix_acl/).map { |name| "#{path}: #{name}" }
  end

  it 'leaves FIFOs, sockets and links out the store neither reads, lists nor follows, and later runs go on' do
    python(<<~PY)
      import os, socket
      os.mkfifo('pipe.txt'); os.mkfifo('.pipe')
      socket.socket(socket.AF_UNIX).bind('sock.txt')
      os.symlink('/etc/shadow', 'shadow.txt'); os.symlink('/', 'root')
    PY
    Timeout.timeout(10) do
      expect(store.list.map(&:path)).to be_empty
      expect(store['pipe.txt']).to be_nil
      expect(store['shadow.txt']).to be_nil
      expect(store['root/etc/passwd']).to be_nil
      expect(run('echo again').stdout).to eq("again\n")
    end
  end

  it 'cannot make a device node, set a file capability, or hard-link a setuid binary of the host' do
    result = python(<<~PY)
      import os
      def attempt(name, call):
          try:
              call(); print(name, 'made')
          except OSError as e:
              print(name, 'refused')
      attempt('device', lambda: os.mknod('null', 0o20666, os.makedev(1, 3)))
      open('cap', 'w').close()
      attempt('capability', lambda: os.setxattr('cap', 'security.capability', b'\\x00\\x00\\x00\\x02' + b'\\xff' * 16))
      attempt('link', lambda: os.link('/usr/bin/su', 'su'))
      attempt('trusted', lambda: os.setxattr('cap', 'trusted.x', b'1'))
    PY
    expect(result.stdout.lines.map(&:split).to_h).to eq(
      'device' => 'refused', 'capability' => 'refused', 'link' => 'refused', 'trusted' => 'refused'
    )
    expect(everything.keys).to eq(['cap'])
  end

  it 'gets no setuid file nor a new namespace through the calls beside the filtered ones' do
    result = python(<<~PY)
      import ctypes, errno, os
      libc = ctypes.CDLL(None, use_errno=True)
      libc.syscall.restype = ctypes.c_long
      X32 = 0x40000000
      open('f', 'w').close()
      name = ctypes.c_char_p(b'f')
      path = ctypes.cast(name, ctypes.c_void_p).value
      reg = ctypes.cast(ctypes.c_char_p(b'g'), ctypes.c_void_p).value
      def call(label, nr, *args):
          ctypes.set_errno(0)
          libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])
          print(label, errno.errorcode.get(ctypes.get_errno(), 'ok'))
      call('clone_newuser', 56, 0x10000000 | 17, 0, 0, 0, 0)
      call('chmod_high_bits', 90, path, 0o4755 | (1 << 32))
      call('fchmodat2', 452, -100, path, 0o4755, 0)
      call('x32_fchmodat2', X32 | 452, -100, path, 0o4755, 0)
      call('x32_keyctl', X32 | 250, 0, 0, 0, 0)
      call('mknod_setuid', 133, reg, 0o104755, 0)
      try:
          os.open('.', os.O_TMPFILE | os.O_WRONLY, 0o4755); print('tmpfile ok')
      except OSError as e:
          print('tmpfile', errno.errorcode[e.errno])
    PY
    outcomes = result.stdout.lines.map(&:split).to_h
    expect(outcomes.values).not_to include('ok')
    expect(outcomes.keys).to eq(%w[clone_newuser chmod_high_bits fchmodat2 x32_fchmodat2 x32_keyctl mknod_setuid
                                   tmpfile])
    expect(everything.values.select { |stat| (stat.mode & 0o6000).nonzero? }).to be_empty
  end
end
