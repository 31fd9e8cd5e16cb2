# frozen_string_literal: true

RSpec.describe 'RubyLLM::FileStore::ChatTools', :ruby_llm do
  let(:store) { RubyLLM.file_store.memory }
  let(:tools) { RubyLLM::FileStore::ChatTools.for(store).to_h { |tool| [tool.name, tool] } }

  # The JSON schema of a tool's arguments: parameters_schema on main, params_schema on 1.16.
  def schema(tool)
    schema = tool.respond_to?(:parameters_schema) ? tool.parameters_schema : tool.params_schema
    JSON.parse(JSON.generate(schema))
  end

  it 'gives the model five RubyLLM::Tool instances with their names' do
    expect(tools.keys).to eq(%w[list_files read_file search_files write_file edit_file])
    expect(tools.values).to all(be_a(RubyLLM::Tool))
  end

  it 'declares the parameters of the model-facing contract' do
    properties = tools.transform_values { |tool| schema(tool)['properties'].keys }
    expect(properties).to eq('list_files' => %w[path], 'read_file' => %w[path offset limit unit],
                             'search_files' => %w[pattern question path literal ignore_case context],
                             'write_file' => %w[path content], 'edit_file' => %w[path old_text new_text replace_all])
    expect(schema(tools['edit_file'])['required']).to eq(%w[path old_text new_text])
  end

  it 'runs with the arguments a model sends, as string keys' do
    tools['write_file'].call({ 'path' => 'a.md', 'content' => "one\ntwo" })
    expect(tools['read_file'].call({ 'path' => 'a.md', 'offset' => '2' })).to eq("     2\ttwo\n[Showing line 2 of 2.]")
    expect(tools['search_files'].call({ 'pattern' => 'one' })).to eq('a.md:1: one')
    expect(tools['search_files'].call({ 'question' => 'one?' })).to start_with('a.md:1-2: one two')
    expect(tools['edit_file'].call({ 'path' => 'a.md', 'old_text' => 'one', 'new_text' => '1' })).to start_with('Edited')
  end

  # ruby_llm 1.16 has no tools returning files; main has (Tool.split_result).
  files_from_tools = !defined?(RubyLLM::Tool) || RubyLLM::Tool.respond_to?(:split_result)

  if files_from_tools
    it 'returns an image as a RubyLLM::Attachment beside its line' do
      store.write('chart.png', File.binread(File.expand_path('../../../fixtures/chart.png', __dir__)))
      text, attachments = RubyLLM::Tool.split_result(tools['read_file'].call({ 'path' => 'chart.png' }))
      expect(text).to eq('chart.png (image/png, 1.8 KB) is attached as the file itself.')
      expect(attachments.map(&:mime_type)).to eq(['image/png'])
    end
  else
    it 'says where tools cannot return files that the model cannot see the image, and names run_code only ' \
       'when the chat has it' do
      store.write('chart.png', File.binread(File.expand_path('../../../fixtures/chart.png', __dir__)))
      expect(tools['read_file'].call({ 'path' => 'chart.png' }))
        .to eq('chart.png (image/png, 1.8 KB) can only be read as the file itself, and this chat cannot show files ' \
               'from tools.')
      coding = RubyLLM::FileStore::ChatTools.for(store, code: -> { true }).find { |tool| tool.name == 'read_file' }
      expect(coding.call({ 'path' => 'chart.png' })).to end_with('cannot show files from tools: read it with run_code.')
    end

    it 'never tells a chat without code execution to read a file with code' do
      context = RubyLLM.context { |config| config.openai_api_key = 'unused' }
      chat = context.chat(model: 'gpt-4.1-mini', provider: :openai, assume_model_exists: true).with_file_store
      chat.file_store.write('scan.pdf', File.binread(File.expand_path('../../../fixtures/documents/scan.pdf', __dir__)))
      read_file = chat.tools[:read_file]
      expect(read_file.call({ 'path' => 'scan.pdf' })).not_to include('code')
      expect(read_file.call({ 'path' => 'scan.pdf' })).to include('cannot show files from tools.')
    end
  end

  it "needs each chat's own read: two chats' tools on one store do not share what the model read" do
    store.write('plan.md', 'v1')
    other = RubyLLM::FileStore::ChatTools.for(store).to_h { |tool| [tool.name, tool] }
    tools['read_file'].call({ 'path' => 'plan.md' })
    expect(other['write_file'].call({ 'path' => 'plan.md', 'content' => 'v2' }))
      .to eq('Error: plan.md exists and has not been read. Read it with read_file before changing it.')
    expect(tools['write_file'].call({ 'path' => 'plan.md', 'content' => 'v2' })).to start_with('Wrote plan.md')
    other['read_file'].call({ 'path' => 'plan.md' })
    expect(other['edit_file'].call({ 'path' => 'plan.md', 'old_text' => 'v2', 'new_text' => 'v3' })).to start_with('Edited')
    expect(tools['write_file'].call({ 'path' => 'plan.md', 'content' => 'v4' }))
      .to eq('Error: plan.md changed since it was read. Read it again with read_file before changing it.')
  end

  it 'answers bad arguments with a message, not an exception' do
    expect(tools['read_file'].call({ 'path' => '../x' })).to eq(%(Error: "../x" is not a path inside the chat's files))
    expect(tools['read_file'].call({})).to eq(error: 'Invalid tool arguments: missing keyword: path')
  end
end
