# frozen_string_literal: true

# A document past the 256 MB a conversion takes is refused by the size its row
# records, before a byte of it is downloaded: Active Storage hands a blob over whole,
# so a 3 GB PDF once went whole into the app on its way to be refused.
RSpec.describe 'RubyLLM::ActiveRecord::FileStore with a document past the conversion size', :rails do
  let(:chat) { Chat.create!(model_id: 'gpt-4.1-mini') }
  let(:store) { RubyLLM.file_store.active_storage(chat) }
  let(:read) { RubyLLM::FileStore::Tools::ReadFile.new(store) }
  let(:refusal) { 'the document is 300 MB, more than the 256 MB a conversion takes' }

  # Writes +path+, then makes its row say 300 MB and, unless +keep+, takes its object
  # off the service, so that any download of it fails.
  def huge(path, content, keep: false)
    store.write(path, content)
    row = RubyLLM::ActiveRecord::ChatFile.find_by!(chat_id: chat.id, path:)
    row.update_columns(byte_size: 300 << 20)
    row.file.blob.service.delete(row.file.blob.key) unless keep
  end

  it 'refuses the PDF by its size, downloading nothing' do
    huge('huge.pdf', File.binread(File.expand_path('../../../fixtures/documents/report.pdf', __dir__)))
    expect(read.call(path: 'huge.pdf')).to eq("Error: huge.pdf could not be read: #{refusal}")
  end

  it "leaves a type that an app's own converter reads to that converter" do
    converters = RubyLLM.config.file_converters
    before = converters['application/pdf']
    converters['application/pdf'] = [->(file) { "read by the app: #{file.filename}" }]
    huge('huge.pdf', '%PDF-1.4', keep: true)
    expect(read.call(path: 'huge.pdf')).to include('read by the app: huge.pdf')
  ensure
    converters['application/pdf'] = before
  end
end
