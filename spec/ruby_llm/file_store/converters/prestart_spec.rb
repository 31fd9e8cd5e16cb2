# frozen_string_literal: true

# A convert worker is started ahead of the first conversion, so that conversion does
# not wait for the supervisor and a worker to start: by the first store a process
# makes, and by a chat that gets a store. Each example runs in a Ruby of its own,
# whose pool starts empty.
RSpec.describe 'A convert worker started ahead of need', :slow do
  include GemRuby
  include TmpDirHelper

  let(:support) { File.expand_path('../../../support', __dir__) }
  # Waits up to 10 seconds for the block, in the script.
  let(:wait) do
    <<~RUBY
      wait = lambda do |&ready|
        deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 10
        sleep 0.01 until ready.call || Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
        ready.call
      end
    RUBY
  end

  it 'has a worker waiting when a store made outside any chat first reads a PDF, which converts in it' do
    output = ruby(<<~RUBY)
      require #{File.join(support, 'convert_workers').inspect}
      require #{File.join(support, 'text_pdf').inspect}
      #{wait}
      native = RubyLLM::FileStore::Native
      pdf = TextPDF.from_markdown("# Report\\n\\nQuarterly revenue grew.")
      store = RubyLLM.file_store.memory
      asked = native.converter_workers
      ready = wait.call { ConvertWorkers.pids.first }
      store.write('report.pdf', pdf)
      text = store.text('report.pdf')
      puts [asked, ready.is_a?(Integer), ConvertWorkers.pids == [ready], native.converter_workers,
            text.include?('Quarterly revenue grew')].inspect
    RUBY
    # The worker was asked for as the store was made, was running before the read,
    # and is the one the read converted in: no other was started.
    expect(output).to eq("[1, true, true, 1, true]\n")
  end

  it "starts one for a folder store and for an app's own store class" do
    own = <<~RUBY
      Class.new(RubyLLM::FileStore) do
        def initialize(bucket)
          super()
          @bucket = bucket
        end
      end.new({})
    RUBY
    made = ["RubyLLM.file_store.directory(#{tmp_dir.inspect})", own]
    outputs = made.map { |store| ruby("#{store}\nputs RubyLLM::FileStore::Native.converter_workers") }
    expect(outputs).to eq(%W[1\n 1\n])
  end

  it 'starts a worker of its own in a process forked after the parent made a store' do
    output = ruby(<<~RUBY)
      require #{File.join(support, 'convert_workers').inspect}
      #{wait}
      RubyLLM.file_store.memory
      parent = wait.call { ConvertWorkers.supervisor }
      child = fork do
        RubyLLM.file_store.memory
        asked = RubyLLM::FileStore::Native.converter_workers
        own = wait.call { ConvertWorkers.supervisor }
        worker = wait.call { ConvertWorkers.pids.first }
        puts [asked, own.is_a?(Integer) && own != parent, worker.is_a?(Integer)].inspect
      end
      Process.wait(child)
      puts [parent.is_a?(Integer), ConvertWorkers.supervisor == parent].inspect
    RUBY
    # The child asked for a worker as its store was made, under a supervisor of its
    # own; the parent's is untouched.
    expect(output).to eq("[1, true, true]\n[true, true]\n")
  end

  it 'asks for a worker once in a process however many stores it makes, and once in a forked one' do
    output = ruby(<<~RUBY)
      asked = 0
      counting = TracePoint.new(:c_call) { |call| asked += 1 if call.method_id == :converter_prestart }
      counting.enable { 10_000.times { RubyLLM.file_store.memory } }
      puts "parent: \#{asked}"
      $stdout.flush
      child = fork do
        asked = 0
        counting.enable { 10_000.times { RubyLLM.file_store.memory } }
        puts "child: \#{asked}"
      end
      Process.wait(child)
    RUBY
    expect(output).to eq("parent: 1\nchild: 1\n")
  end

  it 'starts nothing when the gem is required, nor for a store while no built-in converter is registered' do
    output = ruby(<<~RUBY)
      require #{File.join(support, 'convert_workers').inspect}
      sleep 0.3
      on_require = ConvertWorkers.supervisor
      RubyLLM.configure { |config| config.file_converters = {} }
      RubyLLM.file_store.memory
      sleep 0.3
      puts [on_require, RubyLLM::FileStore::Native.converter_workers, ConvertWorkers.supervisor].inspect
    RUBY
    expect(output).to eq("[nil, 0, nil]\n")
  end

  it 'starts a worker when a chat gets its store, which the first read_file converts in', :ruby_llm do
    output = ruby(<<~RUBY)
      require 'ruby_llm'
      #{wait}
      # No built-in converter in the app's registry: the store starts no worker.
      RubyLLM.configure do |config|
        config.openai_api_key = 'unused'
        config.file_converters = {}
      end
      native = RubyLLM::FileStore::Native
      store = RubyLLM.file_store.memory
      store.write('page.html', '<p>first words</p>')
      RubyLLM.chat(model: 'gpt-4o', provider: :openai, assume_model_exists: true).with_file_store(store)
      sleep 0.3
      without = native.converter_workers
      builtin = RubyLLM.context { |config| config.file_converters = RubyLLM::FileStore::Converters.defaults }
      reader = builtin.chat(model: 'gpt-4o', provider: :openai, assume_model_exists: true).with_file_store(store)
      wait.call { native.converter_workers == 1 }
      started = native.converter_workers
      text = reader.tools[:read_file].call(path: 'page.html')
      puts [without, started, native.converter_workers, text.include?('first words')].inspect
    RUBY
    # No worker for a chat whose registry has no built-in converter; one for the next,
    # which the read converted in, starting no other.
    expect(output).to eq("[0, 1, 1, true]\n")
  end
end
