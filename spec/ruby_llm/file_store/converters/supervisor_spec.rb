# frozen_string_literal: true

require 'logger'
require 'securerandom'
require 'stringio'
require 'timeout'

# The convert workers belong to a supervisor process outside the app: what the app
# does with its own processes (fork, Process.waitall, being PID 1) cannot reach them,
# and what is done to a worker from outside (kill -9, SIGSTOP) is never taken for
# the document's doing.
RSpec.describe 'The convert supervisor', :slow do
  include GemRuby
  include TmpDirHelper
  include Waiting

  # An HTML page a worker takes a while over, and the Ruby code that makes it, for a
  # script of its own (11 MB is too long for an argument).
  let(:page) { "<p>#{'a few words in a paragraph ' * 400_000}</p>" }
  let(:page_code) { "\"<p>\#{'a few words in a paragraph ' * 400_000}</p>\"" }
  # A page a worker spends about a second of CPU on (3 million character references,
  # 15 MB), as a slow spreadsheet does: +label+ makes each one a document of its own.
  def slow_page(label)
    "<p>before #{label}</p><p>#{'&amp;&lt;&#x41;' * 1_000_000}</p>"
  end

  def now
    Process.clock_gettime(Process::CLOCK_MONOTONIC)
  end

  # The worker converting the document just asked for: one running that has spent
  # 50 ms of CPU since +before+ (ConvertWorkers.cpu_ticks of each worker then), so
  # neither a worker starting up nor one finishing another example's page.
  def running_worker(before)
    wait_until(30) do
      ConvertWorkers.pids.find do |pid|
        ConvertWorkers.state(pid) == 'R' && ConvertWorkers.cpu_ticks(pid) - before.fetch(pid, 0) >= 5
      end
    end
  end

  # Each worker's CPU time now, once none is busy with another example's page.
  def workers_at_rest
    wait_until(60) { ConvertWorkers.pids.none? { |pid| ConvertWorkers.state(pid) == 'R' } }
    ConvertWorkers.pids.to_h { |pid| [pid, ConvertWorkers.cpu_ticks(pid)] }
  end

  it 'gives 24 processes forked from a thread while others convert a pool of their own' do
    output = ruby(<<~RUBY, seconds: 240)
      page = #{page_code}
      store = RubyLLM.file_store.directory(#{tmp_dir.inspect})
      read = RubyLLM::FileStore::Tools::ReadFile.new(store)
      busy = Array.new(3) { Thread.new { loop { RubyLLM::FileStore::Native.convert_html(page) } } }
      # A folder store's conversion under way at each fork: a new version each time.
      folder = Thread.new do
        loop do
          store.write('slow.html', page + rand.to_s)
          read.call(path: 'slow.html', limit: 1)
        end
      end
      sleep 0.5
      children = Thread.new do
        Array.new(24) do |n|
          sleep(rand * 0.05)
          fork do
            Timeout.timeout(60) do
              small = RubyLLM::FileStore::Native.convert_html("<p>child \#{n}</p>")[:text]
              slow = read.call(path: 'slow.html', limit: 1)
              exit!(small == "child \#{n}\\n" && slow.include?('a few words') ? 0 : 1)
            end
          rescue Timeout::Error
            exit!(2)
          end
        end
      end.value
      deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 150
      codes = children.map do |pid|
        status = nil
        status = Process.waitpid2(pid, Process::WNOHANG)&.last until status || Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
        next status.exitstatus if status

        Process.kill(:KILL, pid)
        Process.waitpid(pid)
        'deadlocked'
      end
      [*busy, folder].each(&:kill)
      puts codes.tally.map { |code, count| "\#{code}: \#{count}" }.join(", ")
    RUBY
    expect(output).to eq("0: 24\n")
  end

  it 'leaves app code that calls Process.waitall or Process.wait(-1) no worker to wait for' do
    output = ruby(<<~RUBY, seconds: 60)
      RubyLLM::FileStore::Native.convert_html('<p>warm</p>')
      pid = fork { exit!(3) }
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      reaped = Timeout.timeout(10) { Process.waitall } rescue 'hung'
      waited = Timeout.timeout(10) { Process.wait(-1) rescue Errno::ECHILD } rescue 'hung'
      reaped = reaped.map { |p, s| [p == pid, s.exitstatus] } if reaped.is_a?(Array)
      puts [reaped, waited].inspect
      puts RubyLLM::FileStore::Native.convert_html('<p>after</p>')[:text]
    RUBY
    expect(output).to eq("[[[true, 3]], Errno::ECHILD]\nafter\n")
  end

  it 'reads a document whose worker was killed from outside, and keeps no refusal of it' do
    store = RubyLLM.file_store.memory
    # A page of its own: one another example converted first is read from the cache,
    # and no worker would be running to kill.
    label = SecureRandom.hex
    store.write('big.html', slow_page(label))
    read = RubyLLM::FileStore::Tools::ReadFile.new(store)
    before = workers_at_rest
    killer = Thread.new { Process.kill(:KILL, running_worker(before)) }
    first = read.call(path: 'big.html', limit: 1)
    killer.join
    expect(first).to include("before #{label}")
    # An idle worker killed, as the OOM killer would: the next document never read before reads.
    ConvertWorkers.pids.each { |pid| Process.kill(:KILL, pid) }
    store.write('fresh.html', '<p>fresh page</p>')
    expect(read.call(path: 'fresh.html')).to include('fresh page')
    expect(read.call(path: 'big.html', limit: 1)).to include("before #{label}")
  end

  it 'ends a conversion whose worker was stopped at the wall-clock bound, keeping nothing' do
    store = RubyLLM.file_store.memory
    # A page of its own: one converted before, by any example, is read from the cache.
    store.write('big.html', slow_page(SecureRandom.hex))
    read = RubyLLM::FileStore::Tools::ReadFile.new(store)
    RubyLLM::FileStore.raise_converter_errors = false
    log = StringIO.new
    allow(RubyLLM).to receive(:logger).and_return(Logger.new(log))
    wall = RubyLLM::FileStore::Native.converter_wall_limit
    RubyLLM::FileStore::Native.converter_wall_limit = 2
    before = workers_at_rest
    stopper = Thread.new { Process.kill(:STOP, running_worker(before)) }
    started = now
    answer = read.call(path: 'big.html', limit: 1)
    stopper.join
    expect(now - started).to be < 30
    expect(answer).to eq('Error: big.html could not be read now: a convert worker did not answer within 2 seconds ' \
                         '(stopped, or the machine too busy to give it CPU time) and was killed')
    expect(wait_until(10) { ConvertWorkers.pids.none? { |pid| ConvertWorkers.state(pid) == 'T' } }).to be(true)
    expect(log.string).to include('ERROR -- : ruby_llm-file_store: big.html could not be read now')
    RubyLLM::FileStore::Native.converter_wall_limit = wall
    expect(read.call(path: 'big.html', limit: 1)).to include('before')
  ensure
    RubyLLM::FileStore::Native.converter_wall_limit = wall if wall
    RubyLLM::FileStore.raise_converter_errors = nil
  end

  # How an app comes to adopt orphans: as PID 1 of its namespace, or a child subreaper.
  adopting = {
    'PID 1' => { prefix: %w[unshare --pid --fork --mount-proc], preamble: 'raise "not PID 1" unless Process.pid == 1' },
    'a child subreaper' => { prefix: [], preamble: <<~RUBY }
      require 'fiddle'
      prctl = Fiddle::Function.new(Fiddle.dlopen(nil)['prctl'], [Fiddle::TYPE_INT] * 5, Fiddle::TYPE_INT)
      raise 'prctl' unless prctl.call(36, 1, 0, 0, 0).zero? # PR_SET_CHILD_SUBREAPER
    RUBY
  }
  adopting.each do |app, how|
    it "leaves an app that is #{app} no supervisor to wait for, nor its workers once it is killed" do
      skip 'needs unshare --pid' unless how[:prefix].empty? || system(*how[:prefix], 'true', err: File::NULL)
      output = ruby(<<~RUBY, prefix: how[:prefix], seconds: 120)
        #{how[:preamble]}
        waits = lambda do
          reaped = Timeout.timeout(5) { Process.waitall } rescue 'hung'
          waited = Timeout.timeout(5) { Process.wait(-1) rescue Errno::ECHILD } rescue 'hung'
          [reaped, waited]
        end
        zombies = lambda do
          Dir['/proc/[0-9]*/stat'].count do |stat|
            fields = File.read(stat).split(') ').last.split
            fields[0] == 'Z' && fields[1].to_i == Process.pid
          rescue SystemCallError
            false
          end
        end
        RubyLLM::FileStore::Native.convert_html('<p>warm</p>')
        first = waits.call
        supervisor = Dir['/proc/[0-9]*/cmdline'].find do |cmdline|
          File.binread(cmdline).end_with?("\\0supervise\\0\#{Process.pid}\\0") rescue false
        end
        Process.kill(:KILL, File.basename(File.dirname(supervisor)).to_i)
        sleep 0.5
        after_kill = waits.call
        text = RubyLLM::FileStore::Native.convert_html('<p>after</p>')[:text]
        sleep 0.5
        puts [first, after_kill, text, zombies.call].inspect
      RUBY
      expect(output).to eq("[[[], Errno::ECHILD], [[], Errno::ECHILD], \"after\\n\", 0]\n")
    end
  end

  it 'keeps no zombie in an app that is PID 1, after 100 conversions cut short by Timeout' do
    unshare = %w[unshare --pid --fork --mount-proc]
    skip 'needs unshare --pid' unless system(*unshare, 'true', err: File::NULL)
    output = ruby(<<~RUBY, prefix: unshare, seconds: 240)
      page = #{page_code}
      100.times do |n|
        Timeout.timeout(n.even? ? 0.02 : 0.2) { RubyLLM::FileStore::Native.convert_html(page) }
      rescue Timeout::Error
        nil
      end
      RubyLLM::FileStore::Native.convert_html('<p>last</p>')
      sleep 0.5
      zombies = Dir['/proc/[0-9]*/stat'].count { |stat| File.read(stat).split(') ').last.start_with?('Z') rescue false }
      puts "pid \#{Process.pid}, zombies \#{zombies}"
    RUBY
    expect(output).to eq("pid 1, zombies 0\n")
  end

  it 'keeps an app that holds more than any worker alive in a memory cgroup four conversions outgrow' do
    group = MemoryCgroup.make(600 << 20)
    skip 'needs a memory cgroup this process can make (root, or a delegated one)' unless group

    begin
      # 767 KB that its worker holds as 176 MB: the app, holding 250 MB of its own, and
      # two such conversions are past 600 MB; the app alone is far below it.
      document = File.join(tmp_dir, 'paragraphs.docx')
      File.binwrite(document, HostileDocuments.empty_paragraphs(30_000_000))
      output = ruby(<<~RUBY, prefix: ['sh', '-c', "echo $$ > #{group}/cgroup.procs && exec \"$@\"", 'sh'])
        held = Array.new(25) { |n| n.chr * (10 << 20) }
        document = File.binread(#{document.inspect})
        answers = Array.new(4) do
          Thread.new do
            RubyLLM::FileStore::Native.convert_office(document)[:refusal]
          rescue RubyLLM::FileStore::WorkerError
            'worker killed'
          end
        end.map(&:value)
        puts "alive: \#{answers.sort.uniq.join(', ')} (\#{held.sum(&:bytesize) >> 20} MB held)"
      RUBY
      expect(output).to start_with('alive: ')
      expect(MemoryCgroup.oom_kills(group)).to be >= 1
    ensure
      MemoryCgroup.remove(group)
    end
  end

  it 'converts a tiny document of one store within one conversion while 12 reads of another fill every worker' do
    busy = RubyLLM.file_store.memory
    12.times { |n| busy.write("slow-#{n}.html", slow_page(n)) }
    quiet = RubyLLM.file_store.memory
    durations = Queue.new
    readers = Array.new(12) do |n|
      Thread.new do
        started = now
        RubyLLM::FileStore::Tools::ReadFile.new(busy).call(path: "slow-#{n}.html", limit: 1)
        durations << (now - started)
      end
    end
    wait_until(30) { RubyLLM::FileStore::Native.converter_workers == 4 }
    sleep 0.2
    waits = Array.new(2) do |n|
      quiet.write("tiny-#{n}.html", "<p>tiny #{n}</p>")
      started = now
      expect(RubyLLM::FileStore::Tools::ReadFile.new(quiet).call(path: "tiny-#{n}.html")).to include("tiny #{n}")
      now - started
    end
    readers.each(&:join)
    conversion = Array.new(durations.size) { durations.pop }.min
    # The first of the 12 reads waited for no one: its time is one conversion's.
    expect(waits.max).to be < conversion
  end

  it 'raises an error naming where the worker was looked for and why it cannot run, and keeps nothing' do
    store = RubyLLM.file_store.memory
    store.write('report.html', '<p>quarterly report</p>')
    read = RubyLLM::FileStore::Tools::ReadFile.new(store)
    program = RubyLLM::FileStore::Native.converter_program
    log = StringIO.new
    allow(RubyLLM).to receive(:logger).and_return(Logger.new(log))
    missing = File.join(tmp_dir, 'file_store_convert')
    RubyLLM::FileStore::Native.converter_program = missing
    RubyLLM::FileStore.raise_converter_errors = true
    expect { read.call(path: 'report.html') }
      .to raise_error(RubyLLM::FileStore::WorkerError,
                      "report.html could not be read now: the convert worker #{missing} cannot run: " \
                      'there is no file there')
    RubyLLM::FileStore.raise_converter_errors = false
    File.write(missing, File.binread(program))
    RubyLLM::FileStore::Native.converter_program = missing
    expect(read.call(path: 'report.html'))
      .to eq("Error: report.html could not be read now: the convert worker #{missing} cannot run: it may not be " \
             'run there (not executable, or on a file system mounted noexec)')
    expect(log.string).to include("ERROR -- : ruby_llm-file_store: report.html could not be read now: the convert worker #{missing}")
    RubyLLM::FileStore::Native.converter_program = program
    expect(read.call(path: 'report.html')).to include('quarterly report')
  ensure
    RubyLLM::FileStore::Native.converter_program = program if program
    RubyLLM::FileStore.raise_converter_errors = nil
  end
end
