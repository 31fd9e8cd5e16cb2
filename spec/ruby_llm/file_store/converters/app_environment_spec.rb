# frozen_string_literal: true

# What the app's process does to itself or has done to it, and what the convert
# supervisor and its workers inherit from it. None may hang a read, nor be taken for
# the document's doing. Each example runs in a Ruby of its own.
RSpec.describe 'The convert supervisor in the environment the app gives it', :slow do
  include GemRuby

  let(:support) { File.expand_path('../../../support', __dir__) }

  it 'gives up a stopped supervisor in 10 s, reads every document in a new one, and lets the stopped one end' do
    output = ruby(<<~RUBY)
      require #{File.join(support, 'convert_workers').inspect}
      now = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) }
      RubyLLM::FileStore::Native.convert_html('<p>warm</p>')
      stopped = ConvertWorkers.supervisor
      Process.kill(:STOP, stopped)
      store = RubyLLM.file_store.memory
      5.times { |n| store.write("page-\#{n}.html", "<p>page \#{n}</p>") }
      started = now.call
      # More at once than the one idle worker: the others are asked of the stopped supervisor.
      texts = Array.new(5) do |n|
        Thread.new { RubyLLM::FileStore::Tools::ReadFile.new(store).call(path: "page-\#{n}.html") }
      end.map(&:value)
      took = now.call - started
      sleep 0.5
      state = ConvertWorkers.state(stopped) || 'gone'
      read = texts.each_with_index.count { |text, n| text == "     1\\tpage \#{n}" }
      puts "\#{read} read in \#{took < 20 ? 'under' : 'over'} 20 s; the stopped supervisor: \#{state}"
      puts RubyLLM::FileStore::Native.convert_html('<p>after</p>')[:text]
    RUBY
    # The app's wait for the supervisor is at most 10 s (the link's ANSWER_WITHIN).
    expect(output).to match(/\A5 read in under 20 s; the stopped supervisor: (gone|Z)\nafter\n\z/)
  end
end
