# frozen_string_literal: true

RSpec.describe 'RubyLLM::ActiveRecord::FileStore blobs', :rails do
  let(:chat) { Chat.create!(model_id: 'gpt-4.1-mini') }
  let(:store) { RubyLLM.file_store.active_storage(chat) }
  let(:pdf) { File.binread(File.expand_path('../../../fixtures/report.pdf', __dir__)) }

  def message_with_attachment(chat, bytes = pdf)
    Chat.find(chat.id).messages.create!(content: 'see attached').tap do |message|
      message.attachment.attach(io: StringIO.new(bytes), filename: 'report.pdf', content_type: 'application/pdf')
    end
  end

  # Whether the service (the Disk folder, or the S3 bucket) still holds the blob's bytes.
  def blob_on_disk?(blob)
    ActiveStorage::Blob.service.exist?(blob.key)
  end

  it "keeps a message's attachment by its blob: one copy, shared" do
    message = message_with_attachment(chat)
    expect { store.write('report.pdf', message.attachment) }.not_to change(ActiveStorage::Blob, :count)
    row = chat.ruby_llm_chat_files.find_by!(path: 'report.pdf')
    expect(row.file.blob).to eq(message.attachment.blob)
    expect(store['report.pdf'].digest).to eq(Digest::SHA256.hexdigest(pdf))
    expect(store['report.pdf'].byte_size).to eq(pdf.bytesize)
    expect(store.read('report.pdf')).to eq(pdf)
  end

  it 'takes a blob itself, and refuses an attachment with nothing attached' do
    blob = ActiveStorage::Blob.create_and_upload!(io: StringIO.new('made elsewhere'), filename: 'x.txt')
    expect(store.write('x.txt', blob).digest).to eq(Digest::SHA256.hexdigest('made elsewhere'))
    empty = Message.create!(chat:)
    expect { store.write('y.pdf', empty.attachment) }.to raise_error(ArgumentError, /y\.pdf is an attachment with no file/)
  end

  it 'keeps a shared blob when the file is replaced or deleted, and purges one only the file used' do
    message = message_with_attachment(chat)
    store.write('report.pdf', message.attachment)
    store.write('report.pdf', 'replaced')
    expect(blob_on_disk?(message.attachment.blob)).to be(true)
    own = chat.ruby_llm_chat_files.find_by!(path: 'report.pdf').file.blob
    store.delete('report.pdf')
    expect(ActiveStorage::Blob.exists?(own.id)).to be(false)
    expect(blob_on_disk?(own)).to be(false)
    expect(ActiveStorage::Blob.exists?(message.attachment.blob.id)).to be(true)
  end

  it 'purges the blob of a replaced version' do
    store.write('a.txt', 'one')
    first = chat.ruby_llm_chat_files.find_by!(path: 'a.txt').file.blob
    store.write('a.txt', 'two')
    expect(ActiveStorage::Blob.exists?(first.id)).to be(false)
    expect(blob_on_disk?(first)).to be(false)
  end

  it "destroys a chat's files with the chat, and purges the blobs nothing else uses" do
    other = Chat.create!(model_id: 'other')
    message = message_with_attachment(other)
    store.write('mine.txt', 'only here')
    store.write('shared.pdf', message.attachment)
    RubyLLM.file_store.active_storage(chat, owner: User.create!(name: 'Dana')).write('hers.txt', 'hers')
    blobs = chat.ruby_llm_chat_files.map { |row| row.file.blob }

    Chat.find(chat.id).destroy

    expect(RubyLLM::ActiveRecord::ChatFile.where(chat_id: chat.id)).to be_empty
    kept, purged = blobs.partition { |blob| blob == message.attachment.blob }
    expect(purged.size).to eq(2)
    expect(purged.map { |blob| ActiveStorage::Blob.exists?(blob.id) }).to eq([false, false])
    expect(purged.map { |blob| blob_on_disk?(blob) }).to eq([false, false])
    expect(blob_on_disk?(kept.first)).to be(true)
  end

  def unattached_blobs
    ActiveStorage::Blob.where.not(id: ActiveStorage::Attachment.select(:blob_id)).count
  end

  it 'leaves no blob behind when a write is refused or rolled back' do
    store.write('reports/q3.pdf', '%PDF')
    before = unattached_blobs
    expect { store.write('reports', 'x') }.to raise_error(ArgumentError)
    expect do
      store.with_lock do
        store.write('late.txt', 'undone')
        raise 'abandoned'
      end
    end.to raise_error('abandoned')
    expect(store.exist?('late.txt')).to be(false)
    expect(unattached_blobs).to eq(before)
  end

  it "leaves as many blobs as before once a chat whose files share its messages' blobs is destroyed" do
    ActiveStorageJobs.perform_enqueued
    before = ActiveStorage::Blob.count
    keys = Array.new(2) do |i|
      message = message_with_attachment(chat, "#{pdf}#{i}")
      store.write("report-#{i}.pdf", message.attachment)
      message.attachment.blob.key
    end
    store.write('notes.md', 'notes')
    expect(ActiveStorage::Blob.count - before).to eq(3)

    Chat.find(chat.id).destroy
    ActiveStorageJobs.perform_enqueued

    expect(ActiveStorage::Blob.count).to eq(before)
    expect(keys.map { |key| ActiveStorage::Blob.service.exist?(key) }).to eq([false, false])
  end
end
