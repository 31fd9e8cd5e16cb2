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

  # One under the ceiling is downloaded to a file a chunk at a time (Blob#open) and
  # goes from there to its worker a piece at a time: the app once downloaded it whole.
  it 'converts a 200 MB PDF without holding it in the app', :large do
    path = File.join(Dir.mktmpdir, 'large.pdf')
    File.open(path, 'wb') { |file| file.truncate(200 << 20) }
    File.open(path, 'rb') { |file| store.write('large.pdf', file) }
    peak = -> { File.read('/proc/self/status')[/VmHWM:\s+(\d+)/, 1].to_i >> 10 }
    GC.start
    File.write('/proc/self/clear_refs', '5')
    before = peak.call
    expect(read.call(path: 'large.pdf')).to eq('large.pdf (application/pdf, 200 MB) has no text to read.')
    expect(peak.call - before).to be < 32
  ensure
    FileUtils.rm_rf(File.dirname(path)) if path
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
