# frozen_string_literal: true

# The escape suite, part six: what the kernel counts per user, not per process.
# A run's host uid is the app's own (an unprivileged app) or 65534, which other
# processes of the host may use (a root app): a run that took every queued
# signal, message queue, fanotify group or locked page of that uid would fail
# the app's own processes (timer_create EAGAIN, mq_open EMFILE) until it ended.
# bin/test-sandbox runs it as root, as an unprivileged user, and as that user
# in delegated cgroups.
RSpec.describe "The code sandbox against the kernel's per-user slots", if: ENV.fetch('RUBY_LLM_SANDBOX_SUITE', nil) do
  include TmpDirHelper

  let(:store) { RubyLLM.file_store.directory(File.join(tmp_dir, 'store')) }
  let(:runner) { RubyLLM::FileStore::CodeRunner.new(store, python: [], timeout: 60) }

  # Each slot taken as often as the kernel lets (at most +limit+ times), and what
  # the calls got: the counts, then the first refusal's errno name.
  let(:probe) do
    <<~PYTHON
      import ctypes, errno, os, signal, sys
      libc = ctypes.CDLL(None, use_errno=True)
      limit = int(sys.argv[1])
      def taken(call):
          n = 0
          while n < limit:
              if call(n) < 0:
                  return (n, errno.errorcode.get(ctypes.get_errno(), '?'))
              n += 1
          return (n, 'none')
      signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGRTMIN])
      # sigqueue, not kill: a kill past the limit is merged, not refused.
      queue = lambda n: libc.sigqueue(os.getpid(), signal.SIGRTMIN, ctypes.c_void_p(0))
      libc.mq_open.restype = ctypes.c_int
      mq = lambda n: libc.mq_open(('/ruby_llm_slots_%d_%d' % (os.getpid(), n)).encode(), os.O_CREAT | os.O_RDWR, 0o600, None)
      fanotify = lambda n: libc.fanotify_init(0x200, os.O_RDONLY)  # FAN_REPORT_FID, unprivileged
      shms = []
      def shm_lock(n):
          shm = libc.shmget(0, 1 << 20, 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
          shms.append(shm)
          return -1 if shm < 0 else libc.shmctl(shm, 11, None)  # SHM_LOCK
      counts = [taken(queue), taken(mq), taken(fanotify), taken(shm_lock)]
      print(' '.join('%d:%s' % c for c in counts), flush=True)
      if limit == 1:  # on the host: what it made goes (a run's go with its namespaces)
          libc.mq_unlink(('/ruby_llm_slots_%d_0' % os.getpid()).encode())
          [libc.shmctl(shm, 0, None) for shm in shms if shm >= 0]  # IPC_RMID
    PYTHON
  end

  def host_uid = Process.uid.zero? ? RubyLLM::FileStore::Native::RUN_UID : Process.uid

  # The probe run as a process of the run's host uid outside the sandbox, taking
  # one of each slot: what it got.
  def probe_as_host_uid
    reader, writer = IO.pipe
    pid = fork do
      reader.close
      Process::Sys.setresgid(host_uid, host_uid, host_uid) if Process.uid.zero?
      Process::Sys.setresuid(host_uid, host_uid, host_uid) if Process.uid.zero?
      exec('python3', '-c', probe, '1', out: writer, err: File::NULL)
    end
    writer.close
    Process.wait(pid)
    reader.read.strip
  ensure
    reader&.close
  end

  # Once held 96,369 queued signals, 74 message queues, 127 fanotify groups and 8 MiB locked.
  it 'a run flooding queued signals, message queues, fanotify groups and SHM_LOCK holds a few, and the ' \
     "app's uid gets each meanwhile" do
    skip 'python3 is not installed' unless system('python3 -c 1', out: File::NULL, err: File::NULL)
    go = File.join(store.local_root, 'go')
    code = "#{probe}\nimport time\nopen('held', 'w').close()\nfor _ in range(500):\n  " \
           "if os.path.exists('go'): break\n  time.sleep(0.1)\n"
    flood = Thread.new { runner.run(language: 'python', code: "import sys\nsys.argv = ['', '200000']\n#{code}") }
    Timeout.timeout(60) { sleep 0.05 until File.exist?(File.join(store.local_root, 'held')) || !flood.alive? }
    outside = probe_as_host_uid
    File.write(go, '')
    inside = flood.value.stdout.strip
    signals, queues, groups, locked = inside.split.map { |c| c.split(':') }
    told = "inside the run: #{inside}; outside meanwhile: #{outside}"
    aggregate_failures do
      expect(signals[0].to_i).to be <= 256, told # limits.rs SIGNALS_QUEUED
      expect([queues[0], groups[0], locked[0]]).to eq(%w[0 0 0]), told
      expect(outside).to eq('1:none 1:none 1:none 1:none'), told
    end
  end

  it "makes a run and every process it starts the OOM killer's first choice, not the app" do
    code = "import subprocess\nprint(open('/proc/self/oom_score_adj').read().strip())\n" \
           "print(subprocess.run(['cat', '/proc/self/oom_score_adj'], capture_output=True, text=True).stdout.strip())"
    result = runner.run(language: 'python', code:)
    expect(result.stdout.split).to eq(%w[1000 1000])
    expect(File.read('/proc/self/oom_score_adj').to_i).to be < 1000
  end
end
