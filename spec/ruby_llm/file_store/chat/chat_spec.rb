# frozen_string_literal: true

require 'json'

RSpec.describe 'Chat#with_file_store', :ruby_llm do
  include TmpDirHelper
  include ScriptedLLMServer::Helpers

  let(:server) { ScriptedLLMServer.start }
  let(:fixtures) { File.expand_path('../../../fixtures', __dir__) }

  after { server.stop }

  def items(body)
    body['messages'] || body['input']
  end

  def user_texts(body)
    items(body).select { |item| item['role'] == 'user' }.map { |item| text_of(item['content']) }
  end

  def pdf(name, words)
    path = File.join(tmp_dir, name)
    File.binwrite(path, File.binread(File.join(fixtures, 'report.pdf')).sub('revenue grew 12 percent', words))
    path
  end

  ScriptedLLMServer::Helpers.protocols.each do |protocol|
    context "over #{protocol}" do
      let(:chat) { scripted_chat(server, protocol:).with_file_store }

      it 'sends two attached PDFs once, then a line for each' do
        server.script(ScriptedLLMServer.text('Clause 7 changed.'), ScriptedLLMServer.text('Here it is.'))
        v1 = pdf('contract-v1.pdf', 'terminate with 30 days notice')
        v2 = pdf('contract-v2.pdf', 'terminate with 60 days notice')
        chat.ask('Which clauses changed?', with: [v1, v2])
        chat.ask('Quote the new termination clause')

        first, second = server.request_bodies
        expect(attachments_in(first).size).to eq(2)
        expect(attachments_in(second)).to be_empty
        expect(JSON.generate(second)).not_to include(Base64.strict_encode64(File.binread(v2))[0, 40])
        expect(user_texts(second).first).to eq(<<~TEXT.chomp)
          Which clauses changed?

          contract-v1.pdf (application/pdf, #{File.size(v1)} bytes) is in this chat's files

          contract-v2.pdf (application/pdf, #{File.size(v2)} bytes) is in this chat's files
        TEXT
        expect(chat.file_store.list.map(&:path)).to eq(%w[contract-v1.pdf contract-v2.pdf])
        expect(RubyLLM::FileStore::Seams.attachments(chat.messages.first).size).to eq(2)
      end

      # The first example of the README, as written: two real PDFs, no configuration.
      { 'a memory store' => -> { RubyLLM.file_store.memory }, 'a folder store' => -> { tmp_dir } }.each do |kind, store|
        it "quotes the new termination clause of two attached PDFs with #{kind} and no configuration" do
          server.script(
            ScriptedLLMServer.text('Clause 7 changed: the notice went from 30 to 60 days.'),
            ScriptedLLMServer.tool_call('search_files', { pattern: 'terminat', ignore_case: true }),
            ScriptedLLMServer.tool_call('read_file', { path: 'contract-v2.pdf', offset: 33, limit: 3 }),
            ScriptedLLMServer.text('"Either party may terminate this agreement with 60 days written notice."')
          )
          chat = scripted_chat(server, protocol:).with_file_store(instance_exec(&store))
          chat.ask 'Which clauses changed?', with: [File.join(fixtures, 'contract-v1.pdf'),
                                                    File.join(fixtures, 'contract-v2.pdf')]
          chat.ask 'Quote the new termination clause'

          found, read = tool_outputs(server.request_bodies.last)
          expect(found).to eq(<<~FOUND.chomp)
            contract-v1.pdf:33: 7. Termination
            contract-v1.pdf:34: Either party may terminate this agreement with 30 days written notice. The parties agree to the
            contract-v2.pdf:33: 7. Termination
            contract-v2.pdf:34: Either party may terminate this agreement with 60 days written notice; termination for cause
          FOUND
          expect(read).to eq(<<~READ.chomp)
                33	7. Termination
                34	Either party may terminate this agreement with 60 days written notice; termination for cause
                35	takes effect immediately. The parties agree to the terms of clause 7 as set out here. The
            [Showing lines 33-35 of 56. Read on with offset: 36.]
          READ
          expect(attachments_in(server.request_bodies[1])).to be_empty
        end
      end

      it 'finds one line in a 400-line file with search_files, then read_file' do
        chat.file_store.write('handbook.txt', File.read(File.join(fixtures, 'handbook.txt')))
        server.script(
          ScriptedLLMServer.tool_call('search_files', { pattern: 'Remote work' }),
          ScriptedLLMServer.tool_call('read_file', { path: 'handbook.txt', offset: 286, limit: 3 }),
          ScriptedLLMServer.text('Approval is renewed every 90 days.')
        )
        answer = chat.ask('How often is remote work approval renewed?')

        expect(answer.content).to eq('Approval is renewed every 90 days.')
        expect(tool_outputs(server.request_bodies.last)).to eq(
          ['handbook.txt:287: Line 287: Remote work requires a manager approval renewed every 90 days.',
           "   286\tLine 286: Policy text about topic 14 that applies to every employee in every office.\n   " \
           "287\tLine 287: Remote work requires a manager approval renewed every 90 days.\n   " \
           "288\tLine 288: Policy text about topic 16 that applies to every employee in every office.\n" \
           '[Showing lines 286-288 of 400. Read on with offset: 289.]']
        )
        expect(server.request_bodies.first['tools'].map { |tool| tool['name'] || tool.dig('function', 'name') })
          .to eq(%w[list_files read_file search_files write_file edit_file])
      end
    end
  end

  context 'with a Chat Completions chat' do
    let(:chat) { scripted_chat(server).with_file_store }

    it 'spills a long JSON tool result to a file, and the model searches it' do
      export = Class.new(RubyLLM::Tool) do
        def self.name = 'ExportOrders'
        description 'Exports orders'
        def execute = { orders: (1..400).map { |i| { id: i, customer: "Customer #{i}", total: i * 3 } } }
      end
      server.script(
        ScriptedLLMServer.tool_call('export_orders'),
        ScriptedLLMServer.tool_call('search_files', { pattern: '"Customer 321"', path: 'results' }),
        ScriptedLLMServer.text('Order 321 belongs to Customer 321.')
      )
      written = []
      chat.with_tools(export).after_file_write { |file| written << file.path }
      chat.ask('Who placed order 321?')

      spilled = chat.file_store.list('results').first
      expect(spilled.path).to match(%r{\Aresults/export_orders-[0-9a-f]{8}\.json\z})
      expect(written).to eq([spilled.path])
      saved = chat.file_store.read(spilled.path)
      expect(saved.lines.size).to be > 2000
      expect(saved.lines[1]).to eq("  \"orders\": [\n")
      tool_message = chat.messages.find { |message| message.role == :tool }
      expect(tool_message.content).to start_with(saved[0, 2000])
      expect(tool_message.content).to end_with(
        "[This result has #{saved.length} characters, so only the start is shown. All of it is in\n" \
        "#{spilled.path}: read more with read_file, or search it with search_files.]"
      )
      second = items(server.request_bodies[1]).find { |item| item['role'] == 'tool' }
      expect(second['content']).to eq(tool_message.content)
      expect(items(server.request_bodies[2]).select { |item| item['role'] == 'tool' }.last['content'])
        .to include("#{spilled.path}:").and include('"customer": "Customer 321"')
    end

    it 'sends a result whole with spill_to_file: false, or a tool of its own limit' do
      long = Class.new(RubyLLM::Tool) do
        def self.name = 'LongResult'
        description 'Returns a lot'
        def execute = 'x' * 12_000
      end
      server.script(ScriptedLLMServer.tool_call('long_result'), ScriptedLLMServer.text('ok'),
                    ScriptedLLMServer.tool_call('long_result'), ScriptedLLMServer.text('ok'))
      scripted_chat(server).with_file_store(RubyLLM.file_store.memory, spill_to_file: false)
                           .with_tools(long).ask('go')
      expect(items(server.request_bodies[1]).last['content'].length).to eq(12_000)

      long.spill_to_file 20_000
      scripted_chat(server).with_file_store.with_tools(long).ask('go')
      expect(items(server.request_bodies[3]).last['content'].length).to eq(12_000)
    end

    it 'sends the whole result when saving it fails' do
      long = Class.new(RubyLLM::Tool) do
        def self.name = 'LongResult'
        description 'Returns a lot'
        def execute = 'y' * 11_000
      end
      full = RubyLLM.file_store.memory
      full.max_file_size = 10
      def full.write(path, *) = raise(RubyLLM::FileStore::DiskError, "#{path}: No space left on device")
      server.script(ScriptedLLMServer.tool_call('long_result'), ScriptedLLMServer.text('ok'))
      scripted_chat(server).with_file_store(full).with_tools(long).ask('go')
      expect(items(server.request_bodies[1]).last['content']).to eq('y' * 11_000)
    end

    it 'turns an attachment the model cannot take into its line on its own question' do
      docx = File.join(tmp_dir, 'brief.docx')
      File.binwrite(docx, "PK\x03\x04 not really a document".b)
      server.script(ScriptedLLMServer.text('I will read it.'))
      chat.ask('Summarize this', with: docx)
      body = server.request_bodies.first
      expect(attachments_in(body)).to be_empty
      expect(user_texts(body).first).to eq("Summarize this\n\nbrief.docx (application/vnd.openxmlformats-" \
                                           "officedocument.wordprocessingml.document, 26 bytes) is in this chat's files")
    end

    it 'sends read_file results in full until the next question, then a line' do
      chat.file_store.write('notes.md', "alpha\nbeta\n")
      server.script(ScriptedLLMServer.tool_call('read_file', { path: 'notes.md' }), ScriptedLLMServer.text('Read.'),
                    ScriptedLLMServer.text('Done.'))
      chat.ask('Read the notes')
      chat.ask('Thanks')
      tool_contents = server.request_bodies.map { |body| items(body).find { |item| item['role'] == 'tool' }&.dig('content') }
      expect(tool_contents[1]).to eq("     1\talpha\n     2\tbeta")
      expect(tool_contents[2]).to eq('[read_file showed notes.md. It is no longer shown; read it again with read_file when you need it.]')
      expect(chat.messages.find { |message| message.role == :tool }.content).to eq("     1\talpha\n     2\tbeta")
    end

    it 'keeps the same bytes once, and a different file of the same name as name-2' do
      a = pdf('report.pdf', 'first version')
      server.script(ScriptedLLMServer.text('1'), ScriptedLLMServer.text('2'), ScriptedLLMServer.text('3'))
      chat.ask('one', with: a)
      chat.ask('again', with: a)
      File.binwrite(a, File.binread(a).sub('first version', 'other version'))
      chat.ask('changed', with: a)
      expect(chat.file_store.list.map(&:path)).to eq(%w[report-2.pdf report.pdf])
    end

    it 'removes the store with nil: tools go, and the next request sends everything again' do
      image = File.join(fixtures, 'chart.png')
      server.script(ScriptedLLMServer.text('a'), ScriptedLLMServer.text('b'), ScriptedLLMServer.text('c'))
      chat.ask('Look', with: image)
      chat.ask('Again')
      expect(attachments_in(server.request_bodies[1])).to be_empty
      chat.with_file_store(nil)
      expect(chat.file_store).to be_nil
      expect(chat.tools).to be_empty
      chat.ask('And now')
      expect(attachments_in(server.request_bodies[2]).size).to eq(1)
      expect(server.request_bodies[2]).not_to have_key('tools')
    end

    it 'takes a folder path as a Directory store' do
      chat = scripted_chat(server).with_file_store(File.join(tmp_dir, 'work'))
      expect(chat.file_store).to be_a(RubyLLM::FileStore::Directory)
      expect(chat.file_store.local_root).to eq(File.join(tmp_dir, 'work'))
    end

    it 'tells after_file_write about kept attachments and files the tools write' do
      written = []
      chat.after_file_write { |file| written << file.path }
      server.script(ScriptedLLMServer.tool_call('write_file', { path: 'summary.md', content: '# Summary' }),
                    ScriptedLLMServer.text('Written.'))
      chat.ask('Summarize', with: File.join(fixtures, 'revenue.csv'))
      expect(written).to eq(%w[revenue.csv summary.md])
    end

    it 'refuses what is not a store' do
      expect { chat.with_file_store(42) }.to raise_error(ArgumentError, /RubyLLM::FileStore, a folder's path or nil/)
      expect { chat.with_file_store(spill_to_file: 0) }.to raise_error(ArgumentError, /spill_to_file/)
    end
  end

  describe 'agents' do
    let(:llm) do
      base = server.base_url
      RubyLLM.context do |config|
        config.openai_api_key = 'test'
        config.openai_api_base = base
      end
    end
    it 'gives each chat a store of its own from a lambda with the inputs' do
      root = tmp_dir
      llm = self.llm
      agent = Class.new(RubyLLM::Agent) do
        context llm
        inputs :project
        file_store -> { RubyLLM.file_store.directory(File.join(root, project)) }
      end
      options = { model: 'gpt-4.1-mini', provider: :openai, assume_model_exists: true, context: llm }
      one = agent.chat(project: 'alpha', **options)
      two = agent.chat(project: 'beta', **options)
      expect([one.file_store.local_root, two.file_store.local_root]).to eq([File.join(root, 'alpha'), File.join(root, 'beta')])
      expect(one.tools.keys).to include(:read_file)
    end

    it 'inherits the store, and file_store nil removes a parent one' do
      llm = self.llm
      parent = Class.new(RubyLLM::Agent) do
        context llm
        file_store spill_to_file: 20_000
      end
      child = Class.new(parent)
      none = Class.new(parent) { file_store nil }
      options = { model: 'gpt-4.1-mini', provider: :openai, assume_model_exists: true, context: llm }
      expect(child.chat(**options).file_store).to be_a(RubyLLM::FileStore::Memory)
      expect(child.chat(**options).file_store).not_to equal(child.chat(**options).file_store)
      expect(none.chat(**options).file_store).to be_nil
    end
  end
end
