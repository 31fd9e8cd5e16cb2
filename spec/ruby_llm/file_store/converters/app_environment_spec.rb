# frozen_string_literal: true

# What the app's process does to itself or has done to it, and what the convert
# supervisor and its workers inherit from it: a limit on processes, a stopped
# supervisor, an ignored SIGXCPU. None may hang a read, nor be taken for the
# document's doing. Each example runs in a Ruby of its own.
RSpec.describe 'The convert supervisor in the environment the app gives it', :slow do
  include GemRuby

  let(:support) { File.expand_path('../../../support', __dir__) }
  # Root is never refused a process for RLIMIT_NPROC: as root, the app runs as the
  # sandbox suite's user, or as nobody before bin/test-sandbox has made that user.
  let(:as_user) do
    next [] unless Process.uid.zero?

    user = system('id', 'ruby_llm_sandbox_test', out: File::NULL, err: File::NULL) ? 'ruby_llm_sandbox_test' : '65534'
    ['setpriv', "--reuid=#{user}", "--regid=#{user}", '--clear-groups']
  end

  it 'raises WorkerError naming EAGAIN where the system refuses a process, keeps nothing, and reads once it may' do
    skip 'needs setpriv' if as_user.any? && !system('setpriv', '--help', out: File::NULL)

    output = ruby(<<~RUBY, prefix: as_user)
      hard = Process.getrlimit(:NPROC).last
      # No new process (nor thread) for this user from here: the supervisor cannot start.
      Process.setrlimit(:NPROC, 0, hard)
      store = RubyLLM.file_store.memory
      store.write('report.html', '<p>quarterly report</p>')
      read = RubyLLM::FileStore::Tools::ReadFile.new(store)
      RubyLLM::FileStore.raise_converter_errors = true
      begin
        read.call(path: 'report.html')
      rescue RubyLLM::FileStore::WorkerError => e
        puts e.message
      end
      Process.setrlimit(:NPROC, hard, hard)
      sleep 1.2 # the backoff after a start that failed
      puts read.call(path: 'report.html')
    RUBY
    program = File.join(GemRuby::LIB, 'ruby_llm/file_store/file_store_convert')
    expect(output.lines.grep_v(/ERROR -- /).join)
      .to eq("report.html could not be read now: the convert worker #{program} cannot run: the system refused a " \
             "new process (EAGAIN: too many processes, or too little memory)\n     1\tquarterly report\n")
  end

  it 'gives up a stopped supervisor in 10 s, reads every document in a new one, and lets the stopped one end' do
    output = ruby(<<~RUBY)
      require #{File.join(support, 'convert_workers').inspect}
      now = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) }
      RubyLLM::FileStore::Native.convert_html('<p>warm</p>')
      stopped = ConvertWorkers.supervisor
      Process.kill(:STOP, stopped)
      store = RubyLLM.file_store.memory
      5.times { |n| store.write("page-\#{n}.html", "<p>page \#{n}</p>") }
      # The one idle worker kept busy (a second of CPU), so every read below asks the
      # stopped supervisor for a worker of its own; without it, on a loaded machine,
      # the reads could take turns on the idle worker and never ask.
      store.write('slow.html', "<p>slow</p><p>\#{'&amp;' * 1_000_000}</p>")
      slow = Thread.new { RubyLLM::FileStore::Tools::ReadFile.new(store).call(path: 'slow.html', limit: 1) }
      busy = now.call
      sleep 0.02 until ConvertWorkers.pids.any? { |pid| ConvertWorkers.state(pid) == 'R' } || now.call - busy > 10
      started = now.call
      texts = Array.new(5) do |n|
        Thread.new { RubyLLM::FileStore::Tools::ReadFile.new(store).call(path: "page-\#{n}.html") }
      end.map(&:value)
      took = now.call - started
      raise 'the slow page' unless slow.value.start_with?("     1\tslow")
      # Continued when it was given up; on a loaded machine its end may take a moment.
      waited = now.call
      sleep 0.1 while ConvertWorkers.state(stopped) == 'T' && now.call - waited < 10
      state = ConvertWorkers.state(stopped) || 'gone'
      read = texts.each_with_index.count { |text, n| text == "     1\\tpage \#{n}" }
      puts "\#{read} read in \#{took < 20 ? 'under' : 'over'} 20 s; the stopped supervisor: \#{state}"
      puts RubyLLM::FileStore::Native.convert_html('<p>after</p>')[:text]
    RUBY
    # The app's wait for the supervisor is at most 10 s (the link's ANSWER_WITHIN).
    expect(output).to match(/\A5 read in under 20 s; the stopped supervisor: (gone|Z)\nafter\n\z/)
  end

  it 'refuses a document past the CPU ceiling as the document, though the app ignores SIGXCPU' do
    output = ruby(<<~RUBY, seconds: 240)
      require #{File.join(support, 'hostile_pdfs').inspect}
      trap('XCPU', 'IGNORE')
      # Room for 10 s of CPU on a machine whose cores are shared twelve ways: past
      # it the worker would be killed as stopped, whatever became of SIGXCPU.
      RubyLLM::FileStore::Native.converter_wall_limit = 120
      now = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) }
      store = RubyLLM.file_store.memory
      # 67 s where nothing ended it: past the 10 s ceiling on a machine six times faster.
      store.write('fonts.pdf', HostilePDFs.fonts_sharing_chained_widths(1_000, 30_000, 100))
      read = RubyLLM::FileStore::Tools::ReadFile.new(store)
      started = now.call
      puts read.call(path: 'fonts.pdf')
      wall = RubyLLM::FileStore::Native.converter_wall_limit
      puts "before the \#{wall.round} s wall-clock bound" if now.call - started < wall
      # Kept as the document's: read again at once.
      started = now.call
      puts read.call(path: 'fonts.pdf'), now.call - started < 1
    RUBY
    refusal = 'Error: fonts.pdf could not be read: the document takes more than 10 seconds of CPU to convert'
    expect(output).to eq("#{refusal}\nbefore the 120 s wall-clock bound\n#{refusal}\ntrue\n")
  end
end
