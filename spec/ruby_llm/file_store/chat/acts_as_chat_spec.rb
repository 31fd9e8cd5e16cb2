# frozen_string_literal: true

RSpec.describe 'acts_as_chat with files', :acts_as_chat, :rails, :ruby_llm do
  include_context 'a scripted server for chat records'

  let(:conversation) do
    Conversation.create!(model: ScriptedLLMServer::MODEL, provider: :openai, assume_model_exists: true, context:)
  end
  let(:dana) { User.create!(name: 'Dana') }

  def rows_of(chat)
    RubyLLM::ActiveRecord::ChatFile.where(chat_type: 'Conversation', chat_id: chat.id)
  end

  it 'gives the chat its own Active Storage store, attached to the RubyLLM::Chat it builds' do
    expect(conversation.with_file_store).to equal(conversation)
    store = conversation.file_store
    expect(store).to be_a(RubyLLM::ActiveRecord::FileStore)
    expect(store.chat).to equal(conversation)
    expect(store.owner).to be_nil
    expect(conversation.to_llm.file_store).to equal(store)
    expect(conversation.to_llm.tools.keys).to include(:read_file, :write_file)
  end

  it "scopes the store to an owner, who sees the shared files and their own but not another's" do
    eli = User.create!(name: 'Eli')
    RubyLLM.file_store.active_storage(conversation).write('brief.md', 'shared')
    RubyLLM.file_store.active_storage(conversation, owner: eli).write('eli.md', "Eli's")

    conversation.with_file_store(owner: dana)
    expect(conversation.file_store.owner).to eq(dana)
    conversation.file_store.write('dana.md', "Dana's")
    expect(conversation.file_store.list.map(&:path)).to eq(%w[brief.md dana.md])
    expect(rows_of(conversation).find_by(path: 'dana.md').owner).to eq(dana)
  end

  it 'passes a store or nil through, and refuses an owner beside a store' do
    memory = RubyLLM.file_store.memory
    expect(conversation.with_file_store(memory).file_store).to equal(memory)
    expect(conversation.to_llm.file_store).to equal(memory)
    expect(conversation.with_file_store(nil).file_store).to be_nil
    expect(conversation.to_llm.file_store).to be_nil
    expect(conversation.to_llm.tools).not_to include(:read_file)
    expect { conversation.with_file_store(memory, owner: dana) }
      .to raise_error(ArgumentError, /takes owner: only without a store/)
  end

  it "makes a folder's path its Directory store, and file_store returns the store" do
    folder = Dir.mktmpdir
    store = conversation.with_file_store(folder).file_store
    expect(store).to be_a(RubyLLM::FileStore::Directory)
    expect(conversation.to_llm.file_store).to equal(store)
    conversation.instance_variable_set(:@chat, nil)
    expect(conversation.to_llm.file_store).to equal(store)
  end

  it 'keeps the store on a RubyLLM::Chat the record builds again' do
    conversation.with_file_store(owner: dana)
    store = conversation.file_store
    conversation.instance_variable_set(:@chat, nil) # what a rebuild of ruby_llm's memoised chat looks like
    rebuilt = conversation.to_llm
    expect(rebuilt.file_store).to equal(store)
    expect(rebuilt.tools.keys).to include(:read_file)
  end

  it 'declares has_many :ruby_llm_chat_files, destroyed with the chat' do
    reflection = Conversation.reflect_on_association(:ruby_llm_chat_files)
    expect(reflection.macro).to eq(:has_many)
    expect(reflection.options).to include(as: :chat)

    RubyLLM.file_store.active_storage(conversation).write('notes.md', 'notes')
    expect(conversation.ruby_llm_chat_files.pluck(:path)).to eq(['notes.md'])
    conversation.destroy!
    expect(rows_of(conversation)).to be_empty
  end

  it "keeps an attachment of a real ask in the chat's files, and the model reads it through a tool" do
    server.script(ScriptedLLMServer.tool_call('read_file', { path: 'notes.txt' }), ScriptedLLMServer.text('Done.'))
    attachment = File.join(Dir.mktmpdir, 'notes.txt')
    File.write(attachment, "Termination: 30 days' notice.\n")

    reply = conversation.with_file_store(owner: dana).ask('What is the notice period?', with: attachment)

    expect(reply.content).to eq('Done.')
    rows = rows_of(conversation).to_a
    expect(rows.size).to eq(1)
    row = rows.first
    expect([row.path, row.owner, row.file.download]).to eq(['notes.txt', dana, "Termination: 30 days' notice.\n"])
    expect(tool_outputs(server.request_bodies.last).join).to include("30 days' notice") # read from the row
    expect(conversation.conversation_messages.pluck(:role)).to eq(%w[user assistant tool assistant])
    expect(conversation.conversation_messages.first.attachments.map { |file| file.filename.to_s }).to eq(['notes.txt'])
  end

  it 'refuses an owner for a plain RubyLLM::Chat, which has no record to keep files with' do
    expect { scripted_chat(server).with_file_store(owner: dana) }
      .to raise_error(ArgumentError, /needs a chat record declared with acts_as_chat/)
  end

  it "gives an agent's record chat the owner's store" do
    owner = dana
    agent = Class.new(RubyLLM::Agent) do
      chat_model Conversation
      model ScriptedLLMServer::MODEL, provider: :openai, assume_model_exists: true
      file_store owner: -> { owner }
    end
    record = agent.create!(context:)
    expect(record.file_store).to be_a(RubyLLM::ActiveRecord::FileStore)
    expect(record.file_store.owner).to eq(dana)

    plain = Class.new(RubyLLM::Agent) do
      model ScriptedLLMServer::MODEL, provider: :openai, assume_model_exists: true
      file_store owner: -> { owner }
    end
    # The context as a chat option: 1.16.0's Agent.chat leaves the class's context out.
    expect { plain.chat(context:) }.to raise_error(ArgumentError, /needs a chat record/)
  end

  it "gives an agent's record chat whose owner is nil a store that writes nothing, not a shared one" do
    agent = Class.new(RubyLLM::Agent) do
      chat_model Conversation
      model ScriptedLLMServer::MODEL, provider: :openai, assume_model_exists: true
      file_store owner: -> {}
    end
    record = agent.create!(context:)
    expect(record.file_store).to be_a(RubyLLM::FileStore::RailsStore::Ownerless)
    expect { record.file_store.write('notes.md', 'mine') }
      .to raise_error(RubyLLM::FileStore::OwnerMissingError, /\AConversation #{record.id} has no owner/)
    expect(RubyLLM::ActiveRecord::ChatFile.where(chat: record)).to be_empty
  end
end
