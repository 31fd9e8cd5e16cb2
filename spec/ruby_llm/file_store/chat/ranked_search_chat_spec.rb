# frozen_string_literal: true

# A model asks search_files in words, through a real RubyLLM chat, and reads around
# the passage ranked first.
RSpec.describe 'search_files with a question in a chat', :ruby_llm do
  include ScriptedLLMServer::Helpers

  let(:server) { ScriptedLLMServer.start }
  let(:handbook) { File.read(File.expand_path('../../../fixtures/handbook.txt', __dir__)) }

  after { server.stop }

  ScriptedLLMServer::Helpers.protocols.each do |protocol|
    it "finds the passage a question in other words asks for, then reads it, over #{protocol}" do
      chat = scripted_chat(server, protocol:).with_file_store
      chat.file_store.write('handbook.txt', handbook)
      server.script(
        ScriptedLLMServer.tool_call('search_files', { question: 'how often must working remotely be approved again' }),
        ScriptedLLMServer.tool_call('read_file', { path: 'handbook.txt', offset: 281, limit: 20 }),
        ScriptedLLMServer.text('Every 90 days.')
      )
      expect(chat.ask('How often is working from home approved again?').content).to eq('Every 90 days.')

      found, read = tool_outputs(server.request_bodies.last)
      expect(found.lines.first).to start_with('handbook.txt:281-300: Line 281: Policy text')
      expect(found).to include('read around one with read_file (offset: its first line)')
      expect(read).to include("287\tLine 287: Remote work requires a manager approval renewed every 90 days.")
    end
  end
end
