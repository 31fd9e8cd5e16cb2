# frozen_string_literal: true

require 'json'

# A chat model that declares its store once, as an application's Chat does, and what
# its records do when loaded afresh (a job's Chat.find): the store is there, an
# attachment and its chat file share one blob, an owner's files stay the owner's, and
# chat.destroy leaves no blob behind.
RSpec.describe 'acts_as_chat with a declared store', :acts_as_chat, :rails, :ruby_llm do
  include_context 'a scripted server for chat records'

  let(:dana) { User.create!(name: "Dana #{SecureRandom.hex(4)}") }
  let(:pdf_path) { File.expand_path('../../../fixtures/documents/report.pdf', __dir__) }
  let(:pdf) { File.binread(pdf_path) }

  # A Chat model of the application's, declaring the store of its records.
  def chat_class(&declaration)
    owner = dana
    stub_const('DeclaredChat', Class.new(Conversation) do
      define_method(:files_owner) { User.find(owner.id) }
    end)
    DeclaredChat.class_eval(&declaration)
    DeclaredChat
  end

  def create_chat(klass)
    klass.create!(model: ScriptedLLMServer::MODEL, provider: :openai, assume_model_exists: true, context:)
  end

  # A record loaded afresh, as a job loads it.
  def found(klass, chat)
    klass.find(chat.id).tap { |record| record.context = context }
  end

  def rows_of(chat)
    RubyLLM::ActiveRecord::ChatFile.where(chat_type: 'Conversation', chat_id: chat.id)
  end

  # The text of the request's first question, where its attachment was.
  def first_question(body)
    text_of((body['messages'] || body['input']).find { |item| item['role'] == 'user' }['content'])
  end

  def message_blobs(chat)
    chat.conversation_messages.flat_map { |message| message.attachments.map(&:blob) }
  end

  it 'gives every record of the class its store, with the declared owner, on a record loaded afresh' do
    klass = chat_class { file_store owner: ->(chat) { chat.files_owner }, spill_to_file: 20_000 }
    chat = found(klass, create_chat(klass))
    store = chat.file_store
    expect(store).to be_a(RubyLLM::ActiveRecord::FileStore)
    expect([store.chat, store.owner]).to eq([chat, dana])
    expect(chat.to_llm.file_store).to equal(store)
    expect(chat.to_llm.tools.keys).to include(:read_file, :search_files)
    expect(klass.file_store_declaration).to include(spill_to_file: 20_000)
  end

  it 'runs a lambda of no arguments on the record, and lets a record replace or remove its store' do
    klass = chat_class { file_store owner: -> { files_owner } }
    chat = found(klass, create_chat(klass))
    expect(chat.file_store.owner).to eq(dana)
    memory = RubyLLM.file_store.memory
    expect(chat.with_file_store(memory).file_store).to equal(memory)
    expect(found(klass, chat).with_file_store(nil).file_store).to be_nil
    expect(found(klass, chat).to_llm.file_store).to be_a(RubyLLM::ActiveRecord::FileStore)
  end

  it 'leaves an unsaved record without a store until it is saved, and a subclass can remove it' do
    klass = chat_class { file_store }
    chat = klass.new(model: ScriptedLLMServer::MODEL, provider: :openai, assume_model_exists: true, context:)
    expect(chat.file_store).to be_nil
    chat.save!
    expect(chat.file_store).to be_a(RubyLLM::ActiveRecord::FileStore)
    expect(chat.file_store.owner).to be_nil
    stub_const('PlainChat', Class.new(klass) { file_store nil })
    expect(PlainChat.file_store_declaration).to be_nil
    expect(found(PlainChat, chat).file_store).to be_nil
  end

  it 'downloads an attachment at most once over a 5-question conversation, each question a record loaded afresh' do
    BlobDownloads.count!
    klass = chat_class { file_store owner: -> { files_owner } }
    server.script(*Array.new(5) { |i| ScriptedLLMServer.text("Answer #{i + 1}.") })
    chat = create_chat(klass)
    before = BlobDownloads.count

    found(klass, chat).ask('What is this?', with: pdf_path)
    first = BlobDownloads.count - before
    # The later questions, as ruby_llm's ChatResponseJob asks them: Chat.find(id).ask, in another thread.
    4.times { |i| Thread.new { found(klass, chat).ask("And question #{i + 2}?") }.join }

    expect(first).to be <= 1
    expect(BlobDownloads.count - before - first).to eq(0)
    expect(server.request_bodies.map { |body| attachments_in(body).size }).to eq([1, 0, 0, 0, 0])
    expect(first_question(server.request_bodies.last)).to include('report.pdf (application/pdf, ')
    expect(rows_of(chat).map { |row| [row.path, row.owner] }).to eq([['report.pdf', dana]])
  end

  # Blob#download during each question, asked as a job asks it (Chat.find(id).ask in a thread).
  def downloads_per_question(klass, chat, questions)
    server.number_calls_from(SecureRandom.random_number(1 << 40))
    questions.map do |question, options|
      before = BlobDownloads.count
      Thread.new { found(klass, chat).ask(question, **options) }.join
      BlobDownloads.count - before
    end
  end

  # ruby_llm 1.16 reads the message's blob to keep it; main reads the question's own upload.
  def downloads_to_keep = RubyLLM::FileStore::SEAMS_FILE == 'seams/provider_completion' ? 1 : 0

  it 'converts an attachment the model reads in its question from the bytes ruby_llm read, downloading nothing more' do
    BlobDownloads.count!
    klass = chat_class { file_store owner: -> { files_owner } }
    server.script(ScriptedLLMServer.tool_call('read_file', { path: 'report.pdf' }), ScriptedLLMServer.text('Read.'),
                  ScriptedLLMServer.text('Answer 2.'),
                  ScriptedLLMServer.tool_call('read_file', { path: 'report.pdf' }), ScriptedLLMServer.text('Again.'))
    chat = create_chat(klass)

    downloads = downloads_per_question(klass, chat, [['What is this?', { with: pdf_path }], ['And now?', {}],
                                                     ['Read it again?', {}]])

    expect(downloads).to eq([downloads_to_keep, 0, 0])
    expect(server.request_bodies.map(&:to_json).grep(/## Page 1/).size).to eq(2)
  end

  # The Disk service's own file goes to the convert worker: nothing is downloaded, and
  # the text is kept for the next read.
  it 'converts an attachment the model first reads in a later question without downloading it' do
    BlobDownloads.count!
    klass = chat_class { file_store owner: -> { files_owner } }
    server.script(ScriptedLLMServer.text('A report.'),
                  ScriptedLLMServer.tool_call('read_file', { path: 'report.pdf' }), ScriptedLLMServer.text('Read.'),
                  ScriptedLLMServer.tool_call('read_file', { path: 'report.pdf' }), ScriptedLLMServer.text('Again.'))
    chat = create_chat(klass)

    downloads = downloads_per_question(klass, chat, [['What is this?', { with: pdf_path }], ['Read it?', {}],
                                                     ['Read it again?', {}]])

    expect(downloads).to eq([downloads_to_keep, 0, 0])
    expect(RubyLLM::ActiveRecord::ChatFile.find_by!(chat_id: chat.id, path: 'report.pdf').text).to include('## Page 1')
    expect(server.request_bodies.map(&:to_json).grep(/## Page 1/).size).to be >= 2
  end

  it "writes nothing for a chat whose declared owner is nil, saying so, rather than sharing an owner's file" do
    klass = chat_class { file_store owner: -> {} }
    server.script(ScriptedLLMServer.text('It is a report.'), ScriptedLLMServer.text('Still a report.'))
    chat = create_chat(klass)
    refusal = "DeclaredChat #{chat.id} has no owner for its files (its file_store owner: gave nil), so nothing " \
              'is written, not even as a shared file: give the chat its owner first, or declare file_store ' \
              'without owner: for files everyone in the chat shares'

    found(klass, chat).ask('What is this?', with: pdf_path)
    found(klass, chat).ask('And now?')
    written = found(klass, chat).to_llm.tools[:write_file].call({ 'path' => 'notes.md', 'content' => 'mine' })

    expect(written).to eq("Error: #{refusal}")
    expect { found(klass, chat).file_store.write('notes.md', 'mine') }
      .to raise_error(RubyLLM::FileStore::OwnerMissingError, refusal)
    expect(rows_of(chat)).to be_empty
    # The attachment was not kept, so each request sends it as the message has it.
    expect(server.request_bodies.map { |body| attachments_in(body).size }).to eq([1, 1])
  end

  it 'refuses a second file_store declaration on one class, which would undo the first' do
    twice = lambda do
      chat_class do
        file_store owner: -> { files_owner }
        file_store spill_to_file: 5000
      end
    end
    expect(&twice).to raise_error(ArgumentError, 'DeclaredChat declares file_store twice (with owner, then with ' \
                                                 'spill_to_file): declare it once; a subclass may declare its own')
    expect { stub_const('SubChat', Class.new(chat_class { file_store }) { file_store spill_to_file: 5000 }) }
      .not_to raise_error
  end

  it 'answers a later question of a record loaded afresh with the one-line mention, sharing the blob' do
    klass = chat_class { file_store owner: -> { files_owner } }
    # No tool call: ruby_llm 1.16.0's tool_calls table takes each scripted call id once.
    server.script(ScriptedLLMServer.text('It is a report.'), ScriptedLLMServer.text('report.pdf is there.'))
    chat = create_chat(klass)
    blobs_before = ActiveStorage::Blob.count

    found(klass, chat).ask('What is this?', with: pdf_path)
    # The later question, as ruby_llm's ChatResponseJob asks it: Chat.find(id).ask, in another thread.
    Thread.new { found(klass, chat).ask('Which files are there?') }.join

    first, second = server.request_bodies
    expect(attachments_in(first).size).to eq(1)
    mention = "report.pdf (application/pdf, #{RubyLLM::StoredFile.new(path: 'report.pdf', byte_size: pdf.bytesize,
                                                                      content_type: 'application/pdf').human_size}) " \
              "is in this chat's files"
    expect(first_question(second).lines.map(&:chomp)).to eq(['What is this?', '', mention])
    expect(attachments_in(second)).to be_empty
    expect(JSON.generate(second).bytesize).to be < pdf.bytesize

    rows = rows_of(chat).to_a
    expect(rows.map { |row| [row.path, row.owner] }).to eq([['report.pdf', dana]])
    expect(rows.first.file.blob).to eq(message_blobs(chat).first)
    expect(ActiveStorage::Blob.count - blobs_before).to eq(1)
    expect(rows.first.file.download).to eq(pdf)
  end

  it "never copies an owner's attachment for a store without that owner, or with another" do
    ben = User.create!(name: 'Ben')
    server.script(*Array.new(3) { ScriptedLLMServer.text('Noted.') })
    chat = Conversation.create!(model: ScriptedLLMServer::MODEL, provider: :openai, assume_model_exists: true,
                                context:)
    chat.with_file_store(owner: dana).ask('Keep this', with: pdf_path)
    blobs = ActiveStorage::Blob.count

    found(Conversation, chat).with_file_store.ask('And now?')
    found(Conversation, chat).with_file_store(owner: ben).ask('And for Ben?')

    expect(rows_of(chat).map { |row| [row.path, row.owner] }).to eq([['report.pdf', dana]])
    expect(chat.ruby_llm_chat_files.shared).to be_empty
    expect(RubyLLM.file_store.active_storage(chat).list).to be_empty
    expect(RubyLLM.file_store.active_storage(chat, owner: ben).list).to be_empty
    expect(ActiveStorage::Blob.count).to eq(blobs)
  end

  it 'leaves no blob behind after chat.destroy, once the purge jobs ran' do
    klass = chat_class { file_store }
    server.script(ScriptedLLMServer.text('Seen.'), ScriptedLLMServer.text('Seen too.'))
    notes = File.join(Dir.mktmpdir, 'notes.txt')
    File.write(notes, "Notes\n")
    ActiveStorageJobs.perform_enqueued
    blobs_before = ActiveStorage::Blob.count
    chat = create_chat(klass)
    found(klass, chat).ask('Read these', with: [pdf_path, notes])
    found(klass, chat).file_store.write('summary.md', '# Summary')
    found(klass, chat).ask('And again?')
    expect(ActiveStorage::Blob.count - blobs_before).to eq(3)
    keys = ActiveStorage::Blob.order(:id).last(3).map(&:key)

    klass.find(chat.id).destroy
    ActiveStorageJobs.perform_enqueued

    expect(ActiveStorage::Blob.count).to eq(blobs_before)
    expect(keys.map { |key| ActiveStorage::Blob.service.exist?(key) }).to eq([false, false, false])
  end

  describe 'before the migration of ruby_llm_chat_files has run' do
    around do |example|
      connection = ActiveRecord::Base.connection
      connection.rename_table(:ruby_llm_chat_files, :ruby_llm_chat_files_waiting)
      forget_table
      example.run
    ensure
      connection.rename_table(:ruby_llm_chat_files_waiting, :ruby_llm_chat_files)
      forget_table
    end

    def forget_table
      RubyLLM::ActiveRecord::ChatFile.instance_variable_set(:@table_ready, nil)
      ActiveRecord::Base.connection.schema_cache.clear!
      RubyLLM::ActiveRecord::ChatFile.reset_column_information
    end

    it 'saves, asks and destroys a chat that uses no files' do
      server.script(ScriptedLLMServer.text('Hello.'))
      chat = Conversation.create!(model: ScriptedLLMServer::MODEL, provider: :openai, assume_model_exists: true,
                                  context:)
      chat.touch
      expect(chat.save).to be(true)
      expect(chat.ask('Hi').content).to eq('Hello.')
      expect { chat.destroy! }.not_to raise_error
      expect(Conversation.exists?(chat.id)).to be(false)
    end

    it 'says which generator to run when a chat uses a store' do
      message = %r{ruby_llm_chat_files does not exist yet: run bin/rails generate ruby_llm_file_store:install.*db:migrate}
      chat = Conversation.create!(model: ScriptedLLMServer::MODEL, provider: :openai, assume_model_exists: true,
                                  context:)
      expect { chat.with_file_store }.to raise_error(RubyLLM::ConfigurationError, message)
      klass = chat_class { file_store }
      expect { found(klass, chat).ask('Hi') }.to raise_error(RubyLLM::ConfigurationError, message)
      expect(server.request_bodies).to be_empty
    end
  end
end
