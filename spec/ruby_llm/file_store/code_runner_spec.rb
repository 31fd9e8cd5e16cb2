# frozen_string_literal: true

require 'open3'
require 'socket'

RSpec::Matchers.define_negated_matcher :not_include, :include

RSpec.describe RubyLLM::FileStore::CodeRunner do
  let(:written) { [] }
  let(:options) { {} }
  let(:runner) do
    described_class.new(store, python: [], ruby: true, shell: true, timeout: 10,
                               on_write: ->(file) { written << file.path }, **options)
  end
  let(:tool) { RubyLLM::FileStore::Tools::RunCode.new(runner) }

  chart = "import csv\nwith open('sales.csv', 'w', newline='') as f:\n  csv.writer(f).writerows([['month', 'total'], " \
          "['jan', 10]])\nopen('chart.png', 'wb').write(bytes(range(256)) * 400)\nprint('done')"

  each_store do
    it 'saves the CSV and the binary the code writes, and names them' do
      text = tool.call(language: 'python', code: chart)
      expect(text).to start_with('Exit code 0').and include('Created: "chart.png", "sales.csv"')
      expect(stream_in(text)).to eq('done')
      expect(store.read('sales.csv')).to eq("month,total\r\njan,10\r\n")
      expect(store.read('chart.png')).to eq((0..255).to_a.pack('C*') * 400)
      expect(written).to eq(%w[chart.png sales.csv])
    end

    it 'reports a file named with DEL or a C1 control as a name the store cannot hold, as it lists none' do
      text = tool.call(language: 'python', code: "open('a\\x7fb.txt', 'w').write('x')\nopen('c\\x85d.txt', 'w').write('y')")
      expect(text).to include('cannot hold').and include('"a\\x7Fb.txt", "c\\u{85}d.txt"').and not_include('Created')
      expect(store.list.map(&:path)).to be_empty
    end

    it 'runs a script the model edits with edit_file, again' do
      files = RubyLLM::FileStore::Tools
      files::WriteFile.new(store).call(path: 'calc.py', content: "print(6 * 7)\n")
      run = -> { tool.call(language: 'shell', code: 'python3 calc.py', files: ['calc.py']) }
      expect(stream_in(run.call)).to eq('42')
      files::ReadFile.new(store).call(path: 'calc.py')
      expect(files::EditFile.new(store).call(path: 'calc.py', old_text: '6 * 7', new_text: '6 * 8')).not_to start_with('Error')
      expect(stream_in(run.call)).to eq('48')
    end

    it 'kills a child the code forked when the time is up' do
      options[:timeout] = 1
      code = "import os, time\nif os.fork() == 0:\n  time.sleep(3)\n  open('late.txt', 'w').write('x')\nelse:\n  time.sleep(30)"
      started = Time.now
      # The second counts from the call: what came before the run is out of it.
      expect(tool.call(language: 'python', code:)).to match(/\ATimed out after (0\.\d\d|1\.0\d) s/)
      expect(Time.now - started).to be < 5
      sleep 3
      expect(store.exist?('late.txt')).to be(false)
    end

    it 'refuses to read /etc/shadow, write outside the folder or reach 127.0.0.1' do
      server = TCPServer.new('127.0.0.1', 0)
      outside = File.join(tmp_dir, 'outside.txt')
      code = <<~PY
        import socket
        for attempt in [lambda: open('/etc/shadow').read(), lambda: open('/outside.txt', 'w').write('x'),
                        lambda: socket.create_connection(('127.0.0.1', #{server.addr[1]}), timeout=2)]:
          try:
            attempt(); print('allowed')
          except OSError as e:
            print('refused', type(e).__name__)
      PY
      text = tool.call(language: 'python', code: "#{code}\ntry:\n open('#{outside}', 'w').write('x')\nexcept OSError: pass")
      expect(text).to include('refused').and not_include('allowed')
      expect(text.scan('refused').size).to eq(3)
      expect(File.exist?(outside)).to be(false)
    ensure
      server&.close
    end

    it 'contains a fork bomb' do
      options[:limits] = { processes: 32 }
      started = Time.now
      text = tool.call(language: 'shell', code: 'b() { b | b & }; b; sleep 1; echo over')
      expect(text).not_to start_with('Timed out')
      expect(Time.now - started).to be < 8
    end

    it 'reports named packages that do not import, once' do
      runner = described_class.new(store, python: %w[json no_such_package_here], timeout: 10)
      first = runner.run(language: 'python', code: 'print(1)').to_s
      expect(first).to include('no_such_package_here').and not_include('json')
      expect(runner.run(language: 'python', code: 'print(1)').to_s).not_to include('no_such_package_here')
    end

    it 'cuts long output and says so' do
      options[:limits] = { output_bytes: 100 }
      expect(tool.call(language: 'ruby', code: 'print "x" * 5000'))
        .to match(/^#{'x' * 100}\n---\h{16}---\n\[stdout cut: 5000 bytes in all, the first 100 shown\]/)
    end

    it 'refuses a language that is not on, as a message' do
      runner = described_class.new(store, python: [])
      expect(RubyLLM::FileStore::Tools::RunCode.new(runner).call(language: 'shell', code: 'ls'))
        .to eq('Error: "shell" is not a language this chat runs: use python')
    end
  end

  context 'in workspace mode (a Directory store)' do
    include TmpDirHelper

    let(:store) { RubyLLM.file_store.directory(File.join(tmp_dir, 'store')) }
    let(:skills) { File.join(tmp_dir, 'skills').tap { |dir| FileUtils.mkdir_p(dir) } }

    it 'runs in the folder itself and lists what it created, changed and deleted' do
      store.write('keep.txt', 'a')
      store.write('old.txt', 'a')
      expect(runner).to be_workspace
      text = tool.call(language: 'shell', code: 'ls; echo b >> keep.txt; rm old.txt; echo n > new.txt')
      expect(stream_in(text)).to eq("keep.txt\nold.txt")
      expect(text).to include('Created: "new.txt"').and include('Changed: "keep.txt"').and include('Deleted: "old.txt"')
      expect(store.list.map(&:path)).to eq(%w[keep.txt new.txt])
      expect(written).to eq(%w[new.txt keep.txt])
    end

    it 'links mounts in read-only for the run and removes them after' do
      File.write(File.join(skills, 'SKILL.md'), 'use pandas')
      options[:mounts] = { 'skills/data' => skills }
      text = tool.call(language: 'shell', code: 'cat skills/data/SKILL.md; echo x > skills/data/new.md')
      expect(stream_in(text)).to eq('use pandas')
      expect(stream_in(text, 'stderr')).to include('Read-only file system')
      expect(File.exist?(File.join(skills, 'new.md'))).to be(false)
      expect(Dir.children(store.local_root)).not_to include('skills')
    end

    it "runs with the folder's own file where a mount would go, and says so" do
      store.write('skills/own.md', 'mine')
      options[:mounts] = { 'skills' => skills }
      text = tool.call(language: 'shell', code: 'cat skills/own.md')
      expect(stream_in(text)).to eq('mine')
      expect(text).to include("skills is this folder's own")
      expect(File.symlink?(File.join(store.local_root, 'skills'))).to be(false)
    end

    it 'does not follow a link out of the folder' do
      File.write(File.join(tmp_dir, 'secret.txt'), 'secret')
      File.symlink(File.join(tmp_dir, 'secret.txt'), File.join(store.local_root, 'link.txt'))
      text = tool.call(language: 'shell', code: 'cat link.txt')
      expect(text).to include('No such file').and not_include('secret')
    end
  end

  context 'in copy mode (a Memory store)' do
    let(:store) { RubyLLM.file_store.memory }

    it 'copies in the named files and folders only, and keeps what the run deletes' do
      store.write('data/a.csv', 'a')
      store.write('data/deep/b.csv', 'b')
      store.write('other.txt', 'o')
      text = tool.call(language: 'shell', code: 'find . -type f | sort; rm data/a.csv', files: ['data'])
      expect(stream_in(text)).to eq("./data/a.csv\n./data/deep/b.csv")
      expect(text).to include("Deleted in the run folder but kept in the chat's files: \"data/a.csv\"")
      expect(store.exist?('data/a.csv')).to be(true)
    end

    it 'tells the model when a name has no file' do
      expect(tool.call(language: 'shell', code: 'ls', files: ['missing.csv']))
        .to eq("Error: No file or folder at missing.csv in this chat's files. Find names with list_files.")
    end
  end

  it 'runs without the sandbox only when asked, with the same limits' do
    runner = described_class.new(RubyLLM.file_store.memory, shell: true, sandbox: false, timeout: 1)
    expect(runner.run(language: 'shell', code: 'sleep 5').to_s).to start_with('Timed out')
  end

  it 'leaves an app that is PID 1 no zombie and nothing to wait for after 100 timed-out runs, some leaving processes' do
    unshare = %w[unshare --pid --fork --mount-proc]
    skip 'needs unshare --pid' unless system(*unshare, 'true', err: File::NULL)
    lib = File.expand_path('../../../lib', __dir__)
    script = <<~RUBY
      $LOAD_PATH.unshift(#{lib.inspect})
      require 'ruby_llm/file_store'
      require 'timeout'
      store = RubyLLM.file_store.memory
      runners = [false, true].map { |sandbox| RubyLLM::FileStore::CodeRunner.new(store, shell: true, sandbox:, timeout: 0.2) }
      runners.pop unless system('bwrap', '--ro-bind', '/', '/', 'true', err: File::NULL)
      waits = -> { [(Timeout.timeout(5) { Process.waitall } rescue 'hung'), (Process.wait(-1, Process::WNOHANG) rescue Errno::ECHILD)] }
      during = nil
      runners.each do |runner|
        (50 / runners.size).times do |n|
          runner.run(language: 'shell', code: 'sleep 30 & sleep 30 & sleep 30')
          running = Thread.new { runner.run(language: 'shell', code: '(sleep 30 &); sleep 30') }
          during = waits.call if n == 3
          running.join
        end
      end
      sleep 0.5
      zombies = Dir['/proc/[0-9]*/stat'].count { |stat| File.read(stat).split(') ').last.start_with?('Z') rescue false }
      puts "pid \#{Process.pid}, runners \#{runners.size}, waits \#{during.inspect} \#{waits.call.inspect}, zombies \#{zombies}"
    RUBY
    output, = Open3.capture2e(*unshare, RbConfig.ruby, *RubyLLMPath.ruby_options, '-e', script)
    expect(output).to match(/\Apid 1, runners [12], waits \[\[\], Errno::ECHILD\] \[\[\], Errno::ECHILD\], zombies 0\n\z/)
  end

  it 'runs code in no child of the app: Process.waitall returns at once, and a process forked mid-run runs its own' do
    lib = File.expand_path('../../../lib', __dir__)
    script = <<~RUBY
      $LOAD_PATH.unshift(#{lib.inspect})
      require 'ruby_llm/file_store'
      require 'timeout'
      runner = RubyLLM::FileStore::CodeRunner.new(RubyLLM.file_store.memory, shell: true, sandbox: false, timeout: 10)
      running = Thread.new { runner.run(language: 'shell', code: 'sleep 2; echo slept').to_s }
      sleep 0.2 until Dir['/proc/[0-9]*/cmdline'].any? { |f| File.read(f).tr(0.chr, " ").start_with?("sleep 2") rescue false }
      children = Dir['/proc/[0-9]*/stat'].count { |stat| File.read(stat).split(') ').last.split[1].to_i == Process.pid rescue false }
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      reaped = Timeout.timeout(10) { Process.waitall } rescue 'hung'
      waited = (Process.clock_gettime(Process::CLOCK_MONOTONIC) - started).round
      forked = fork { exit!(runner.run(language: 'shell', code: 'echo child').to_s.include?('child') ? 0 : 1) }
      _, status = Process.wait2(forked)
      puts [children, reaped, waited, status.exitstatus, running.value.include?('slept')].inspect
    RUBY
    output, = Open3.capture2e(RbConfig.ruby, *RubyLLMPath.ruby_options, '-e', script)
    expect(output).to eq("[0, [], 0, 0, true]\n")
  end

  it 'raises WorkerError naming the executable when no run can start, and runs once it is back' do
    program = RubyLLM::FileStore::Native.converter_program
    sandboxed = RubyLLM::FileStore::Native.sandbox_problem.nil?
    missing = File.join(Dir.tmpdir, 'ruby_llm_no_such_folder', 'file_store_convert')
    RubyLLM::FileStore::Native.converter_program = missing
    cannot = /\Acode cannot run now: the convert worker #{Regexp.escape(missing)} cannot run: there is no file there/
    runner = described_class.new(RubyLLM.file_store.memory, shell: true, sandbox: false, timeout: 5)
    expect { runner.run(language: 'shell', code: 'echo hi') }.to raise_error(RubyLLM::FileStore::WorkerError, cannot)
    if sandboxed
      expect { described_class.new(RubyLLM.file_store.memory, shell: true).check_sandbox! }
        .to raise_error(RubyLLM::FileStore::WorkerError, cannot)
    end
    RubyLLM::FileStore::Native.converter_program = program
    expect(runner.run(language: 'shell', code: 'echo hi').to_s).to include('hi')
  ensure
    RubyLLM::FileStore::Native.converter_program = program
  end

  it "runs at the core's default limits, which are the runner's, and names a limit it does not know" do
    native = RubyLLM::FileStore::Native
    expect(described_class::DEFAULT_LIMITS).to include(native::RUN_LIMITS.slice(*described_class::NATIVE_LIMITS))
    expect(described_class::DEFAULT_LIMITS).to include(cpu_seconds: 60, output_bytes: 20_000)
    Dir.mktmpdir do |dir|
      ran = native.run(argv: ['sh', '-c', 'head -c 50000 /dev/zero'], dir:, sandbox: false, timeout: 5.0)
      expect(ran[:stdout].bytesize).to eq(native::RUN_LIMITS[:output_bytes])
      expect { native.run(argv: %w[true], dir:, sandbox: false, timeout: 5.0, limits: { cpu: 1 }) }
        .to raise_error(ArgumentError, /unknown limit :cpu/)
    end
  end

  it 'refuses a timeout or a limit no run would take when it is set up, naming it' do
    store = RubyLLM.file_store.memory
    refusals = [{ timeout: Float::INFINITY }, { timeout: 0 }, { timeout: '30' }, { limits: { cpu: 1 } },
                { limits: { memory_bytes: -1 } }].map do |options|
      described_class.new(store, shell: true, **options)
    rescue ArgumentError => e
      e.message
    end
    expect(refusals).to eq(['timeout must be a positive number of seconds, not inf',
                            'timeout must be a positive number of seconds, not 0',
                            'timeout must be a positive number of seconds, not "30"',
                            "unknown limit :cpu (known: #{described_class::DEFAULT_LIMITS.keys.join(', ')})",
                            "limit memory_bytes: RangeError: can't convert negative integer to unsigned"])
    expect(described_class.new(store, shell: true).timeout).to eq(RubyLLM::FileStore::Native::RUN_LIMITS[:timeout])
  end

  it 'raises a clear error where bubblewrap is missing' do
    path = ENV.fetch('PATH')
    ENV['PATH'] = '/nowhere'
    runner = described_class.new(RubyLLM.file_store.memory)
    expect { runner.check_sandbox! }.to raise_error(RubyLLM::FileStore::SandboxError, /bubblewrap.*sandbox: false/m)
  ensure
    ENV['PATH'] = path
  end
end
