# frozen_string_literal: true

RSpec.describe 'A chat that runs code on its files', :ruby_llm do
  include TmpDirHelper
  include ScriptedLLMServer::Helpers

  let(:server) { ScriptedLLMServer.start }

  after { server.stop }

  def tool_messages(body)
    body['messages'].select { |message| message['role'] == 'tool' }.map { |message| message['content'] }
  end

  it 'lets the model write a chart with code, read it back and find it in the store' do
    chat = scripted_chat(server).with_file_store(RubyLLM.file_store.memory).with_code_execution(python: [])
    written = []
    chat.after_file_write { |file| written << file.path }
    code = "import csv\nrows = list(csv.reader(open('revenue.csv')))\n" \
           "open('summary.txt', 'w').write(f'{len(rows) - 1} rows')\nprint('done')"
    server.script(
      ScriptedLLMServer.tool_call('run_code', { language: 'python', code:, files: ['revenue.csv'] }),
      ScriptedLLMServer.tool_call('read_file', { path: 'summary.txt' }),
      ScriptedLLMServer.text('The export has 18 rows.')
    )

    answer = chat.ask('How many rows does the export have?',
                      with: File.expand_path('../../../fixtures/revenue.csv', __dir__))

    expect(answer.content).to eq('The export has 18 rows.')
    expect(chat.file_store.read('summary.txt')).to eq('18 rows')
    expect(written).to eq(%w[revenue.csv summary.txt])
    run_result, read_result = tool_messages(server.request_bodies.last)
    expect(run_result).to include('done').and include('summary.txt')
    expect(read_result).to eq("     1\t18 rows")
  end
end
