# frozen_string_literal: true

require 'timeout'

# A seeded random run over one folder: processes and their threads write, edit
# through the tools, delete, delete folders, sweep with no grace at all, have writes
# stopped by Timeout and Thread#kill, and are killed outright mid-write. At the end
# every file is one whole version, every file the run did not make is still there,
# and once swept nothing a writer left remains.
RSpec.describe 'A random run of writers, editors, deleters and sweepers on one folder', :large, :native do
  include TmpDirHelper

  let(:root) { File.join(tmp_dir, 'store') }
  let(:seed) { RSpec.configuration.seed }
  let(:paths) { Array.new(4) { |d| Array.new(3) { |f| "work/d#{d}/f#{f}.txt" } }.flatten }
  # Files of the user's that the run never writes: a look-alike of a temporary file,
  # one in a hidden folder, one beside the work.
  let(:foreign) do
    { '.notes.txt.1-1f-0.tmp' => 'mine', 'work/d0/.f0.txt.7-2a-3.tmp' => 'also mine',
      '.cache/.f.txt.9-1-1.tmp' => 'cached', 'keep.md' => 'kept' }
  end

  # A version of +path+: a header the edits change, a body, and the body's digest,
  # so a file cut short or mixed from two writes shows.
  def version(path, number, random)
    body = "#{path} #{random.rand(10**9)}\n" * random.rand(1..20_000)
    "v#{number}\n#{body}#{Digest::SHA256.hexdigest(body)}\n"
  end

  def whole?(content)
    header, *body, digest = content.lines
    header.match?(/\Av\d+\n\z/) && Digest::SHA256.hexdigest(body.join) == digest&.chomp
  end

  # What a step does, by how many of 100 steps do it.
  let(:actions) do
    { write: 35, edit: 15, delete: 10, delete_folder: 6, sweep: 8, timeout: 13, kill: 13 }.flat_map { |name, n| [name] * n }
  end

  # One step of a worker; an outcome the run allows is returned, anything else raises.
  def step(worker, random)
    act(actions.sample(random:), worker, paths.sample(random:), random)
  rescue Timeout::Error, RubyLLM::FileNotFoundError
    nil
  rescue RubyLLM::FileStore::Error => e
    raise unless e.message.match?(/was not written: its folder \S+ was deleted while the write ran/)

    lost_race(random)
  rescue ArgumentError => e
    raise unless e.message.match?(/is a folder, not a file/)
  end

  def act(action, worker, path, random)
    store = worker[:store]
    case action
    when :write then store.write(path, random.rand(2).zero? ? version(path, 1, random) : StringIO.new(version(path, 1, random)))
    when :edit then edit(worker[:tools], path, random)
    when :delete then store.delete(path)
    when :delete_folder then store.delete_folder(File.dirname(path))
    when :sweep then worker[:native].sweep_leftovers(0)
    else stopped_write(action, store, path, random)
    end
  end

  # A write stopped by Timeout or Thread#kill at a random point.
  def stopped_write(how, store, path, random)
    delay = random.rand(0.0..0.01)
    return Timeout.timeout(delay) { store.write(path, version(path, 2, random)) } if how == :timeout

    writer = Thread.new { store.write(path, version(path, 3, random)) }
    sleep delay
    writer.kill.join
  end

  def edit(tools, path, random)
    read = tools[:read].call(path:, limit: 1)
    return unless (number = read[/\A\s*1\tv(\d+)/, 1])

    result = tools[:edit].call(path:, old_text: "v#{number}\n", new_text: "v#{number.to_i + random.rand(1..9)}\n")
    # A plain write takes no lock, so it can replace the file between an edit's
    # check and its read: the edit then finds no old_text, and changes nothing.
    return if result.start_with?('Edited', 'Error: No file') ||
              result.match?(/changed since it was read|has not been read|old_text was not found/)
    raise result unless result.match?(/was not written: its folder \S+ was deleted while the write ran/)

    lost_race(random)
  end

  # Counts a write that lost a race with delete_folder, across processes.
  def lost_race(random)
    File.write(File.join(tmp_dir, "race-#{Process.pid}-#{random.rand(10**12)}"), '')
  end

  def worker(random, steps)
    store = RubyLLM.file_store.directory(root)
    reads = RubyLLM::FileStore::Reads.new
    tools = { read: RubyLLM::FileStore::Tools::ReadFile.new(store, reads:),
              edit: RubyLLM::FileStore::Tools::EditFile.new(store, reads:) }
    worker = { store:, tools:, native: RubyLLM::FileStore::Native::Directory.open(root) }
    steps.times { step(worker, random) }
  end

  def run_process(index)
    fork do
      Array.new(2) { |t| Thread.new { worker(Random.new(seed + (10 * index) + t), 150) } }.each(&:join)
      exit!(0)
    rescue Exception => e # rubocop:disable Lint/RescueException
      warn "worker #{index}: #{e.class}: #{e.message}\n#{e.backtrace.first(5).join("\n")}"
      exit!(1)
    end
  end

  # A process killed outright mid-write, as a crash or the OOM killer does.
  def crash(random)
    pid = fork do
      store = RubyLLM.file_store.directory(root)
      loop { store.write(paths.sample(random:), version('x', 4, random)) }
    end
    sleep random.rand(0.01..0.05)
    Process.kill(:KILL, pid)
    Process.wait(pid)
  end

  it 'ends with every file whole, no foreign file gone, and nothing left once swept' do
    foreign.each do |path, content|
      FileUtils.mkdir_p(File.dirname(File.join(root, path)))
      File.write(File.join(root, path), content)
    end
    random = Random.new(seed)
    pids = Array.new(3) { |index| run_process(index) }
    4.times { crash(random) }
    expect(pids.map { |pid| Process.wait2(pid).last.exitstatus }).to eq([0, 0, 0])

    store = RubyLLM.file_store.directory(root)
    files = store.list('work')
    expect(files.map { |file| whole?(store.read(file.path)) }.uniq - [true]).to be_empty
    expect(foreign.to_h { |path, _| [path, File.read(File.join(root, path))] }).to eq(foreign)
    crashed = (Dir.glob('**/.*.tmp', File::FNM_DOTMATCH, base: root) - foreign.keys).size
    swept = RubyLLM::FileStore::Native::Directory.open(root).sweep_leftovers(0)
    races = Dir.glob(File.join(tmp_dir, 'race-*')).size
    puts "random run: 3 processes x 2 threads x 150 steps and 4 crashes, #{files.size} files whole at the end, " \
         "#{races} writes that lost a race with delete_folder, #{swept} of #{crashed} leftovers swept, " \
         "#{foreign.size} foreign files kept (seed #{seed})"
    left = Dir.glob('**/.*.tmp', File::FNM_DOTMATCH, base: root) - foreign.keys
    expect(left).to be_empty
  end
end
