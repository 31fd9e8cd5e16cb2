# frozen_string_literal: true

require 'net/http'

RSpec.describe ScriptedLLMServer, :ruby_llm do
  include ScriptedLLMServer::Helpers

  let(:fixtures) { File.expand_path('../fixtures', __dir__) }
  let(:server) { described_class.start }

  after { server.stop }

  # Defined per example so the file loads without ruby_llm.
  def define_search_files_tool
    found = []
    tool = Class.new(RubyLLM::Tool) do
      description 'Searches the stored files for a pattern'
      RubyLLM::FileStore::Seams.declare_parameter(self, :pattern, description: 'what to look for')
      define_method(:execute) do |pattern:|
        found << pattern
        "3 files mention #{pattern}"
      end
    end
    stub_const('SearchFiles', tool)
    found
  end

  def messages_of(body)
    body['messages'] || body['input']
  end

  it 'listens on a random local port and answers a raw POST' do
    expect(server.base_url).to match(%r{\Ahttp://127\.0\.0\.1:\d+/v1\z})
    server.script(described_class.text('raw'))
    uri = URI("#{server.base_url}/chat/completions")
    response = Net::HTTP.post(uri, JSON.generate(model: 'm', messages: []), 'Content-Type' => 'application/json')
    expect(response.code).to eq('200')
    expect(JSON.parse(response.body).dig('choices', 0, 'message', 'content')).to eq('raw')
    expect(server.requests.map { |request| request.except(:usage) })
      .to eq([{ path: '/v1/chat/completions', body: { 'model' => 'm', 'messages' => [] }, bytes: 27 }])
  end

  it 'accepts only scripted replies' do
    expect { server.script('hello') }.to raise_error(ArgumentError, /not a ScriptedLLMServer reply/)
  end

  it 'answers an unknown path with 404 and leaves the script alone' do
    server.script(described_class.text('kept'))
    response = Net::HTTP.post(URI("#{server.base_url}/embeddings"), '{}', 'Content-Type' => 'application/json')
    expect(response.code).to eq('404')
    expect(response.body).to include('no route for POST /v1/embeddings')
    expect(server.pending_replies).to eq(1)
  end

  ScriptedLLMServer::Helpers.protocols.each do |protocol|
    context "with the #{protocol} protocol" do
      let(:path) { protocol == :chat_completions ? '/v1/chat/completions' : '/v1/responses' }
      let(:chat) { scripted_chat(server, protocol:) }

      it 'answers a plain text question' do
        server.script(described_class.text('Hello from the script'))
        reply = chat.ask('hi')
        expect(reply.content).to eq('Hello from the script')
        expect(reply.tokens.input).to be_positive
        expect(server.requests.map { |request| request[:path] }).to eq([path])
        expect(server.requests.first[:bytes]).to be_positive
        body = server.request_bodies.first
        expect(body['model']).to eq('gpt-4.1-mini')
        expect(body['stream']).to be(false)
        expect(text_of(messages_of(body).last['content'])).to eq('hi')
        expect(server.pending_replies).to eq(0)
      end

      it 'round-trips a tool call and records the tool result' do
        found = define_search_files_tool
        server.script(described_class.tool_call('search_files', { pattern: 'termination' }),
                      described_class.text('Three files.'))
        reply = chat.with_tools(SearchFiles).ask('which files mention termination?')

        expect(reply.content).to eq('Three files.')
        expect(found).to eq(['termination'])
        first, second = server.request_bodies
        expect(first['tools'].to_json).to include('search_files')
        if protocol == :chat_completions
          tool_message = second['messages'].find { |message| message['role'] == 'tool' }
          expect(tool_message).to include('content' => '3 files mention termination', 'tool_call_id' => 'call_1')
        else
          output = second['input'].find { |item| item['type'] == 'function_call_output' }
          expect(output).to include('output' => '3 files mention termination', 'call_id' => 'call_1')
        end
      end

      it 'renders several tool calls in one reply' do
        found = define_search_files_tool
        server.script(described_class.tool_calls([['search_files', { pattern: 'a' }],
                                                  ['search_files', { pattern: 'b' }]]),
                      described_class.text('done'))
        expect(chat.with_tools(SearchFiles).ask('a and b?').content).to eq('done')
        expect(found).to contain_exactly('a', 'b')
        results = messages_of(server.request_bodies.last).select do |item|
          item['role'] == 'tool' || item['type'] == 'function_call_output'
        end
        expect(results.size).to eq(2)
      end

      it 'finds the PNG and the PDF attachments in the recorded body, and none in a later request' do
        server.script(described_class.text('a chart'), described_class.text('a report'), described_class.text('ok'))
        chat.ask('describe', with: File.join(fixtures, 'chart.png'))
        chat.ask('describe', with: File.join(fixtures, 'report.pdf'))
        chat.ask('thanks')

        bodies = server.request_bodies
        image_types = { chat_completions: 'image_url', responses: 'input_image' }
        pdf_types = { chat_completions: 'file', responses: 'input_file' }
        expect(attachments_in(bodies[0]).map { |part| part['type'] }).to eq([image_types[protocol]])
        expect(attachments_in(bodies[1]).map { |part| part['type'] }).to eq([image_types[protocol], pdf_types[protocol]])
        expect(attachments_in(bodies[1]).last.to_json).to include('report.pdf', 'data:application/pdf;base64,')
        expect(text_of(messages_of(bodies[1]).last['content'])).to eq('describe')
        expect(server.requests[1][:bytes]).to be > File.size(File.join(fixtures, 'report.pdf'))
      end

      it 'raises a RubyLLM::Error when the script runs out' do
        expect { chat.ask('hi') }.to raise_error(RubyLLM::Error, /script ran out/)
        expect(server.requests.size).to eq(1)
      end

      it 'raises a scripted error' do
        server.script(described_class.error('overloaded', status: 503))
        expect { chat.ask('hi') }.to raise_error(RubyLLM::Error, /overloaded/)
      end

      it 'streams a text word by word to the block given to chat.ask' do
        server.script(described_class.text('Revenue grew twelve percent.'))
        chunks = []
        reply = chat.ask('hi') { |chunk| chunks << chunk.content if chunk.content && !chunk.content.empty? }
        expect(chunks).to eq(['Revenue ', 'grew ', 'twelve ', 'percent.'])
        expect(reply.content).to eq('Revenue grew twelve percent.')
        expect(reply.tokens.input).to be_positive
        expect(server.request_bodies.first['stream']).to be(true)
      end

      it 'streams a tool call, runs the tool, and streams the answer after it' do
        found = define_search_files_tool
        server.script(described_class.tool_call('search_files', { pattern: 'termination' }),
                      described_class.text('Three files.'))
        chunks = []
        reply = chat.with_tools(SearchFiles).ask('which?') { |chunk| chunks << chunk.content if chunk.content }
        expect(found).to eq(['termination'])
        expect(reply.content).to eq('Three files.')
        expect(chunks.join).to eq('Three files.')
        expect(server.request_bodies.map { |body| body['stream'] }).to eq([true, true])
      end
    end
  end

  context "with Anthropic's Messages API" do
    let(:chat) { scripted_chat(server, provider: :anthropic) }

    it 'answers a question and round-trips a tool call as tool_use and tool_result blocks' do
      found = define_search_files_tool
      server.script(described_class.tool_call('search_files', { pattern: 'termination' }),
                    described_class.text('Three files.'))
      reply = chat.with_tools(SearchFiles).ask('which files mention termination?')

      expect(reply.content).to eq('Three files.')
      expect(found).to eq(['termination'])
      expect(server.requests.map { |request| request[:path] }).to eq(%w[/v1/messages /v1/messages])
      first, second = server.request_bodies
      expect(first['model']).to start_with(ScriptedLLMServer::ANTHROPIC_MODEL)
      expect(first['tools'].map { |tool| tool['name'] }).to eq(['search_files'])
      expect(second['messages'][1]['content'].first).to include('type' => 'tool_use', 'name' => 'search_files')
      expect(tool_outputs(second)).to eq(['3 files mention termination'])
      expect(server.requests.last[:usage]).to include(:input_tokens, :cache_read_input_tokens,
                                                      :cache_creation_input_tokens)
    end

    it 'refuses a streaming request loudly without using the script' do
      server.script(described_class.text('unused'))
      expect { chat.ask('hi') { |_chunk| nil } }.to raise_error(RubyLLM::Error, %r{streaming is not supported on /v1/messages})
      expect(server.pending_replies).to eq(1)
    end
  end

  context 'with a scripted turn' do
    let(:chat) { scripted_chat(server) }

    it 'decides each request from what it shows, and is used up by its text answer' do
      define_search_files_tool
      server.script(described_class.turn do |seen|
        output = seen.last_tool_output
        next text("found: #{output}") if output

        seen.tool?('search_files') ? tool_call('search_files', { pattern: 'x' }) : text('no tools')
      end, described_class.text('next'))
      expect(chat.with_tools(SearchFiles).ask('find x').content).to eq('found: 3 files mention x')
      expect(server.pending_replies).to eq(1)
      expect(chat.ask('and then?').content).to eq('next')
    end

    it 'answers an error when the turn returns no reply' do
      server.script(described_class.turn { |_seen| 'not a reply' })
      expect { chat.ask('hi') }.to raise_error(RubyLLM::Error, /a turn returned "not a reply", not a reply/)
    end
  end

  context 'with text_of' do
    it 'flattens message content into text' do
      expect(text_of('plain')).to eq('plain')
      expect(text_of(nil)).to eq('')
      expect(text_of([{ 'type' => 'input_text', 'text' => 'a' }, { 'type' => 'input_image', 'image_url' => 'x' },
                      { 'type' => 'text', 'text' => 'b' }])).to eq("a\nb")
    end
  end
end
