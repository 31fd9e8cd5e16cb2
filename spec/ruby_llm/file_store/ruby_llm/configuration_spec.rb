# frozen_string_literal: true

RSpec.describe 'config.file_converters', :ruby_llm do
  after { RubyLLM.config.file_converters.delete('application/x-test') if defined?(RubyLLM::Chat) }

  it 'is a real RubyLLM configuration option' do
    expect(RubyLLM::Configuration.options).to include(:file_converters)
    RubyLLM.configure { |config| config.file_converters['application/x-test'] = RubyLLM.file_store.converter.text }
    expect(RubyLLM.config.file_converters['application/x-test']).to eq(RubyLLM::FileStore::Converters::Text)
  end

  it "gives a context's copy of the config its own Hash" do
    context = RubyLLM.context { |config| config.file_converters['application/x-test'] = :context_only }
    expect(context.config.file_converters['application/x-test']).to eq(:context_only)
    expect(RubyLLM.config.file_converters).not_to have_key('application/x-test')
  end

  it 'is what FileStore#text uses by default' do
    RubyLLM.config.file_converters['application/x-test'] = ->(_) { 'converted' }
    store = RubyLLM.file_store.memory
    store.write('a.bin', 'raw', content_type: 'application/x-test')
    expect(store.text('a.bin')).to eq('converted')
  end

  it 'hands the OCR converter the file as an attachment for RubyLLM.ocr' do
    received = nil
    ocr_result = Struct.new(:markdown).new("## Page 1\n\nScanned text")
    allow(RubyLLM).to receive(:ocr) do |file, **options|
      received = [file.class, file.filename, options]
      ocr_result
    end
    RubyLLM.config.file_converters['application/x-test'] = RubyLLM.file_store.converter.ocr(model: 'mistral-ocr-latest')
    store = RubyLLM.file_store.memory
    store.write('scan.bin', 'bytes', content_type: 'application/x-test')
    expect(store.text('scan.bin')).to eq("## Page 1\n\nScanned text")
    expect(received).to eq([RubyLLM::Attachment, 'scan.bin', { model: 'mistral-ocr-latest' }])
  end
end
