# frozen_string_literal: true

RSpec.describe 'Chat#with_code_execution', :ruby_llm do
  include TmpDirHelper

  let(:chat) { RubyLLM::Chat.new(model: 'gpt-4.1-nano', provider: :openai, assume_model_exists: true) }
  let(:written) { [] }

  before do
    RubyLLM.configure { |config| config.openai_api_key ||= 'test' }
  end

  it 'needs a file store first' do
    expect { chat.with_code_execution }.to raise_error(RubyLLM::ConfigurationError, /with_file_store first/)
  end

  it 'gives the model run_code, which runs in the folder of a Directory store' do
    chat.with_file_store(RubyLLM.file_store.directory(File.join(tmp_dir, 'work')))
        .with_code_execution(python: [], shell: true)
        .after_file_write { |file| written << file.path }
    tool = chat.tools[:run_code]
    expect(tool.description).to include('runs in the folder holding')
    schema = tool.respond_to?(:parameters_schema) ? tool.parameters_schema : tool.params_schema
    expect(JSON.parse(JSON.generate(schema))['properties'].keys).to eq(%w[language code files])
    text = tool.call({ 'language' => 'python', 'code' => "open('out.csv', 'w').write('a,b')" })
    expect(text).to include('Created: "out.csv"')
    expect(chat.file_store.read('out.csv')).to eq('a,b')
    expect(written).to eq(['out.csv'])
  end

  it 'copies named files for any other store and saves back what the run wrote' do
    chat.with_file_store(RubyLLM.file_store.memory).with_code_execution(shell: true)
    chat.file_store.write('in.txt', 'hello')
    tool = chat.tools[:run_code]
    expect(tool.description).to include('runs in an empty folder')
    tool.call({ 'language' => 'shell', 'code' => 'tr a-z A-Z < in.txt > out.txt', 'files' => ['in.txt'] })
    expect(chat.file_store.read('out.txt')).to eq('HELLO')
  end

  it 'raises where bubblewrap cannot run, unless sandbox: false' do
    chat.with_file_store(RubyLLM.file_store.memory)
    path = ENV.fetch('PATH')
    ENV['PATH'] = '/nowhere'
    expect { chat.with_code_execution }.to raise_error(RubyLLM::FileStore::SandboxError, /not installed/)
    expect(chat.with_code_execution(sandbox: false).tools).to include(:run_code)
  ensure
    ENV['PATH'] = path
  end
end
