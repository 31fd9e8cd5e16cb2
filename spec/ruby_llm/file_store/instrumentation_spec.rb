# frozen_string_literal: true

require 'base64'
require 'json'

# The events a chat with files emits, seen as a ruby_llm app sees them: through
# RubyLLM.instrument, to whatever config.instrumenter is.
RSpec.describe 'The events of a chat with files', :ruby_llm do
  include TmpDirHelper
  include ScriptedLLMServer::Helpers

  # An instrumenter as ruby_llm takes one (instrument(name, payload) with a block),
  # keeping every event of the gem with its payload as subscribers saw it at the end.
  let(:instrumenter) do
    Class.new do
      attr_reader :events

      def initialize = @events = []

      def instrument(name, payload)
        yield payload if block_given?
      ensure
        @events << [name, payload] if name.end_with?('.file_store.ruby_llm')
      end
    end.new
  end
  let(:server) { ScriptedLLMServer.start }
  let(:fixtures) { File.expand_path('../../fixtures', __dir__) }

  around do |example|
    before = RubyLLM.config.instrumenter
    RubyLLM.config.instrumenter = instrumenter
    example.run
  ensure
    RubyLLM.config.instrumenter = before
    server.stop
  end

  def events(name)
    instrumenter.events.select { |event, _| event == "#{name}.file_store.ruby_llm" }.map(&:last)
  end

  # No value of any payload holds +text+.
  def expect_never(text)
    instrumenter.events.each do |_, payload|
      payload.each_value do |value|
        expect(value.inspect).not_to include(text) unless value.is_a?(RubyLLM::Chat)
      end
    end
  end

  it 'emits a tool event for each call, naming the chat, the store, the path and the outcome' do
    chat = scripted_chat(server).with_file_store
    server.script(ScriptedLLMServer.tool_call('write_file', { path: 'notes.md', content: 'secret plan' }),
                  ScriptedLLMServer.tool_call('read_file', { path: 'nope.md' }),
                  ScriptedLLMServer.text('done'))
    chat.ask('Write the plan')

    written, missing = events(:tool)
    expect(written).to include(chat:, store: chat.file_store, tool: 'write_file', path: 'notes.md', outcome: :ok,
                               bytes_in: 11, bytes_out: 'Wrote notes.md (text/markdown, 11 bytes)'.bytesize)
    expect(missing).to include(tool: 'read_file', path: 'nope.md', outcome: :error, error: start_with('No file at nope.md'))
    expect([written, missing].map { |payload| payload[:duration] }).to all(be_a(Float).and(be >= 0))
    expect_never('secret plan')
  end

  it 'emits refused_write for a write over the limit and one of a file the model has not read' do
    store = RubyLLM.file_store.memory(max_file_size: 10)
    store.write('kept.md', 'old')
    chat = scripted_chat(server).with_file_store(store)
    server.script(ScriptedLLMServer.tool_call('write_file', { path: 'big.md', content: 'x' * 11 }),
                  ScriptedLLMServer.tool_call('write_file', { path: 'kept.md', content: 'new' }),
                  ScriptedLLMServer.text('done'))
    chat.ask('Write')

    large, unread = events(:refused_write)
    expect(large).to include(chat:, store:, tool: 'write_file', path: 'big.md', reason: :too_large, bytes: 11,
                             message: start_with('big.md would be 11 bytes, over'))
    expect(unread).to include(path: 'kept.md', reason: :unread,
                              message: 'kept.md exists and has not been read. Read it with read_file before changing it.')
    expect(events(:tool).map { |payload| payload[:outcome] }).to eq(%i[error error])
    expect(store.read('kept.md')).to eq('old')
  end

  it 'emits a convert event for each read of a PDF: converted once, then from the cache' do
    chat = scripted_chat(server).with_file_store(RubyLLM.file_store.memory)
    chat.file_store.write('report.pdf', File.binread(File.join(fixtures, 'report.pdf')))
    server.script(ScriptedLLMServer.tool_call('read_file', { path: 'report.pdf' }),
                  ScriptedLLMServer.tool_call('search_files', { pattern: 'revenue' }),
                  ScriptedLLMServer.text('done'))
    chat.ask('What grew?')

    first, second = events(:convert)
    size = File.size(File.join(fixtures, 'report.pdf'))
    text = chat.file_store.text('report.pdf')
    expect(first).to include(store: chat.file_store, path: 'report.pdf', content_type: 'application/pdf',
                             bytes_in: size, bytes_out: text.bytesize, lines: text.lines.size, cached: false,
                             outcome: :converted)
    expect(second).to include(path: 'report.pdf', cached: true, outcome: :converted, bytes_out: text.bytesize)
    expect_never('revenue grew')
  end

  it 'emits a convert event from a folder store, whose core converts and caches' do
    chat = scripted_chat(server).with_file_store(tmp_dir)
    chat.file_store.write('report.pdf', File.binread(File.join(fixtures, 'report.pdf')))
    server.script(ScriptedLLMServer.tool_call('read_file', { path: 'report.pdf' }), ScriptedLLMServer.text('ok'))
    chat.ask('Read it')

    expect(events(:convert)).to contain_exactly(
      include(path: 'report.pdf', converter: 'pdf', cached: nil, outcome: :converted,
              bytes_out: chat.file_store.text('report.pdf').bytesize,
              lines: chat.file_store.text('report.pdf').count("\n"))
    )
  end

  it 'emits a spill event with where the result went and how much the model was shown' do
    export = Class.new(RubyLLM::Tool) do
      def self.name = 'ExportOrders'
      description 'Exports orders'
      def execute = (1..2000).map { |i| "order #{i}" }.join("\n")
    end
    chat = scripted_chat(server).with_file_store.with_tools(export)
    server.script(ScriptedLLMServer.tool_call('export_orders'), ScriptedLLMServer.text('ok'))
    chat.ask('Export')

    spilled = chat.file_store.list('results').first
    shown = chat.messages.find { |message| message.role == :tool }.content
    expect(events(:spill)).to contain_exactly(
      include(chat:, store: chat.file_store, tool: 'export_orders', path: spilled.path, outcome: :spilled,
              bytes_in: spilled.byte_size, bytes_out: shown.bytesize, duration: be_a(Float))
    )
  end

  it 'emits a failed spill when the store refuses it, and the result goes whole' do
    long = Class.new(RubyLLM::Tool) do
      def self.name = 'LongResult'
      description 'Returns a lot'
      def execute = 'y' * 11_000
    end
    full = RubyLLM.file_store.memory
    def full.write(path, *) = raise(RubyLLM::FileStore::DiskError, "#{path}: No space left on device")
    server.script(ScriptedLLMServer.tool_call('long_result'), ScriptedLLMServer.text('ok'))
    scripted_chat(server).with_file_store(full).with_tools(long).ask('go')

    expect(events(:spill)).to contain_exactly(
      include(tool: 'long_result', outcome: :failed, bytes_out: 11_000,
              error: match(%r{\ARubyLLM::FileStore::DiskError: results/long_result-\h+\.txt: No space left}))
    )
  end

  it 'emits an attachment event once for each attachment kept, over several questions' do
    chat = scripted_chat(server).with_file_store
    server.script(ScriptedLLMServer.text('Read.'), ScriptedLLMServer.text('Yes.'), ScriptedLLMServer.text('No.'))
    chat.ask('Read these', with: [File.join(fixtures, 'report.pdf'), File.join(fixtures, 'revenue.csv')])
    chat.ask('Anything else?')
    chat.ask('Sure?')

    expect(events(:attachment)).to contain_exactly(
      include(chat:, store: chat.file_store, filename: 'report.pdf', path: 'report.pdf', outcome: :kept,
              bytes: File.size(File.join(fixtures, 'report.pdf')), shared_blob: false),
      include(filename: 'revenue.csv', path: 'revenue.csv', outcome: :kept)
    )
  end

  it "keeps no attachment over the store's max_file_size: it is sent as the message has it, and reported" do
    store = RubyLLM.file_store.memory(max_file_size: 400)
    chat = scripted_chat(server).with_file_store(store)
    server.script(ScriptedLLMServer.text('Read.'), ScriptedLLMServer.text('Yes.'))
    pdf = File.join(fixtures, 'report.pdf')
    chat.ask('Read these', with: [pdf, File.join(fixtures, 'revenue.csv')])
    chat.ask('Anything else?')

    expect(store.list.map(&:path)).to eq(['revenue.csv'])
    sent = Base64.strict_encode64(File.binread(pdf))
    expect(server.request_bodies.map { |body| JSON.generate(body).include?(sent) }).to eq([true, true])
    expect(events(:attachment)).to contain_exactly(
      include(filename: 'report.pdf', outcome: :too_large, bytes: File.size(pdf),
              error: "report.pdf is #{File.size(pdf)} bytes, over this store's limit of 400 bytes a file"),
      include(filename: 'revenue.csv', outcome: :kept)
    )
  end

  it 'emits a run_code event saying how the run ended, never the code or what it printed' do
    chat = scripted_chat(server).with_file_store.with_code_execution(shell: true, sandbox: false)
    code = "echo 'printed words' > out.txt; echo 'printed words'; exit 3"
    server.script(ScriptedLLMServer.tool_call('run_code', { language: 'shell', code: }), ScriptedLLMServer.text('ok'))
    chat.ask('Run it')

    expect(events(:run_code)).to contain_exactly(
      include(chat:, store: chat.file_store, language: 'shell', sandbox: false, workspace: false, outcome: :exited,
              exit_code: 3, created: 1, changed: 0, deleted: 0, bytes_in: code.bytesize,
              bytes_out: "printed words\n".bytesize)
    )
    expect(events(:tool).map { |payload| payload[:tool] }).to eq(['run_code'])
    expect_never('printed words')
  end

  context 'with a converter that raises' do
    let(:failing) { ->(_file) { raise NoMethodError, "undefined method `call' for secrets.rb:12" } }

    def failing_chat
      context = RubyLLM.context do |config|
        server.point(config)
        config.file_converters['application/pdf'] = failing
      end
      context.chat(model: ScriptedLLMServer::MODEL, provider: :openai, assume_model_exists: true).with_file_store
    end

    around do |example|
      RubyLLM::FileStore.raise_converter_errors = false
      example.run
    ensure
      RubyLLM::FileStore.raise_converter_errors = nil
    end

    it 'tells the model a short error and reports the converter error in the event' do
      chat = failing_chat
      chat.file_store.write('report.pdf', File.binread(File.join(fixtures, 'report.pdf')))
      server.script(ScriptedLLMServer.tool_call('read_file', { path: 'report.pdf' }), ScriptedLLMServer.text('ok'))
      chat.ask('Read it')

      told = chat.messages.find { |message| message.role == :tool }.content
      expect(told).to eq('Error: report.pdf could not be converted: its application/pdf converter failed')
      expect(events(:convert)).to contain_exactly(
        include(path: 'report.pdf', outcome: :failed, converter: failing.inspect,
                error: "NoMethodError: undefined method `call' for secrets.rb:12")
      )
    end

    it 'raises the converter error out of the tool call where raise_converter_errors is on' do
      RubyLLM::FileStore.raise_converter_errors = true
      chat = failing_chat
      chat.file_store.write('report.pdf', File.binread(File.join(fixtures, 'report.pdf')))
      server.script(ScriptedLLMServer.tool_call('read_file', { path: 'report.pdf' }), ScriptedLLMServer.text('ok'))

      expect { chat.ask('Read it') }.to raise_error(NoMethodError, /secrets\.rb:12/)
      expect(events(:convert)).to contain_exactly(include(outcome: :failed))
    end
  end
end
