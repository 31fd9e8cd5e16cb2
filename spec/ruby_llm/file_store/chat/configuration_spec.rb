# frozen_string_literal: true

RSpec.describe 'config.file_converters', :ruby_llm do
  after { RubyLLM.config.file_converters.delete('application/x-test') if defined?(RubyLLM::Chat) }

  it 'is a real RubyLLM configuration option' do
    expect(RubyLLM::Configuration.options).to include(:file_converters)
    RubyLLM.configure { |config| config.file_converters['application/x-test'] = RubyLLM.file_store.converter.text }
    expect(RubyLLM.config.file_converters['application/x-test']).to eq(RubyLLM::FileStore::Converters::Text)
  end

  it 'starts with the built-in converters, each of which can be replaced or removed' do
    context = RubyLLM.context { |config| config.file_converters.delete('application/pdf') }
    expect(RubyLLM.config.file_converters).to include('application/pdf' => RubyLLM::FileStore::Converters::PDF)
    pdf = File.binread(File.expand_path('../../../fixtures/report.pdf', __dir__))
    stores = Array.new(2) { RubyLLM.file_store.memory.tap { |store| store.write('report.pdf', pdf) } }
    expect(stores[0].text('report.pdf')).to eq("## Page 1\nQuarterly report: revenue grew 12 percent.\n")
    expect(stores[1].text('report.pdf', config: context.config)).to be_nil
    off = RubyLLM.context { |config| config.file_converters = {} }
    expect(off.config.file_converters).to be_empty
  end

  it "gives a context's copy of the config its own Hash" do
    context_only = ->(_file) { 'context only' }
    context = RubyLLM.context { |config| config.file_converters['application/x-test'] = context_only }
    expect(context.config.file_converters['application/x-test']).to eq(context_only)
    expect(RubyLLM.config.file_converters).not_to have_key('application/x-test')
  end

  it 'refuses, as RubyLLM.configure runs, a key that is not a MIME type and a converter without call' do
    expect { RubyLLM.configure { |config| config.file_converters['pdf'] = RubyLLM.file_store.converter.pdf } }
      .to raise_error(ArgumentError, /config.file_converters\["pdf"\]: "pdf" is not a MIME type/)
    expect { RubyLLM.context { |config| config.file_converters = { 'application/x-test' => :reader } } }
      .to raise_error(ArgumentError, /:reader does not answer call/)
    expect(RubyLLM.config.file_converters.keys).not_to include('pdf', 'application/x-test')
  end

  it 'is what FileStore#text uses by default' do
    RubyLLM.config.file_converters['application/x-test'] = ->(_) { 'converted' }
    store = RubyLLM.file_store.memory
    store.write('a.bin', 'raw', content_type: 'application/x-test')
    expect(store.text('a.bin')).to eq('converted')
  end

  if defined?(RubyLLM) && RubyLLM.respond_to?(:ocr)
    it "reads a scan with the real RubyLLM.ocr, over the provider's OCR endpoint" do
      server = ScriptedLLMServer.start
      server.script(ScriptedLLMServer.text("## Page 1\n\nScanned text"))
      context = RubyLLM.context do |config|
        config.mistral_api_key = 'test'
        config.mistral_api_base = server.base_url
        config.max_retries = 0
      end
      ocr = RubyLLM.file_store.converter.ocr(model: 'mistral-ocr-latest', provider: :mistral,
                                             assume_model_exists: true, context:)
      config = Struct.new(:file_converters).new({ 'application/pdf' => ocr })
      store = RubyLLM.file_store.memory
      pdf = File.binread(File.expand_path('../../../fixtures/documents/scan.pdf', __dir__))
      store.write('scan.pdf', pdf)

      expect(store.text('scan.pdf', config:)).to eq("## Page 1\n\nScanned text")
      body = server.request_bodies.last
      expect(body['model']).to eq('mistral-ocr-latest')
      expect(body['document']).to eq('type' => 'document_url',
                                     'document_url' => "data:application/pdf;base64,#{Base64.strict_encode64(pdf)}")
    ensure
      server&.stop
    end
  else
    it 'says the OCR converter needs RubyLLM.ocr, which this ruby_llm lacks' do
      RubyLLM.config.file_converters['application/x-test'] = RubyLLM.file_store.converter.ocr
      store = RubyLLM.file_store.memory
      store.write('scan.bin', 'bytes', content_type: 'application/x-test')
      expect { store.text('scan.bin') }.to raise_error(
        RubyLLM::ConfigurationError,
        "The OCR converter needs RubyLLM.ocr, which ruby_llm's main branch has: ruby_llm #{RubyLLM::VERSION} has none"
      )
    end
  end
end
