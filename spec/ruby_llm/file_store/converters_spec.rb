# frozen_string_literal: true

RSpec.describe RubyLLM::FileStore::Converters do
  let(:store) { RubyLLM.file_store.memory }
  let(:registry) { {} }
  let(:config) { Struct.new(:file_converters).new(registry) }

  def converter(name, result = name)
    calls = []
    callable = lambda do |attachment|
      calls << attachment.filename
      result
    end
    [callable, calls]
  end

  it 'tries exact types, then families, then */*' do
    exact, = converter('exact', nil)
    family, = converter('family', nil)
    any, = converter('any')
    registry.merge!('*/*' => any, 'image/*' => family, 'image/png' => exact)
    expect(described_class.candidates(registry, 'image/png')).to eq([exact, family, any])
  end

  it 'asks the core which converters read a type and what it calls the built-in ones' do
    native = RubyLLM::FileStore::Native
    expect(native.type_rules('image/png')).to eq(converter_keys: %w[image/png image/* */*], text: false)
    expect(RubyLLM::FileStore::Converters::Builtin::CONVERTERS.map { |builtin| builtin::NAME })
      .to match_array(native::CONVERTERS)
    plan = described_class.plan(nil)
    expect(native.reading(plan, 'application/pdf')).to eq(%w[pdf])
    expect(native.reading(plan, 'text/markdown')).to be_nil
    registry.merge!('application/pdf' => [RubyLLM::FileStore::Converters::PDF, ->(_) {}], 'text/html' => [])
    expect(described_class.native_chain('application/pdf', config:)).to be_nil
    expect(native.reading(described_class.plan(config), 'application/pdf')).to eq(:ruby)
    registry['*/*'] = RubyLLM::FileStore::Converters::HTML
    expect(described_class.native_chain('text/html', config:)).to eq(%w[html])
  end

  it 'tries an Array in order, passing nil on to the next' do
    first, first_calls = converter('first', nil)
    second, = converter('second text')
    registry['application/pdf'] = [first, second]
    store.write('a.pdf', '%PDF-1.4')
    expect(store.text('a.pdf', config:)).to eq('second text')
    expect(first_calls).to eq(['a.pdf'])
  end

  it 'runs registered converters before the built-in text converter' do
    upcase, = converter('FROM THE CONVERTER')
    registry['text/markdown'] = upcase
    store.write('a.md', 'from the file')
    expect(store.text('a.md', config:)).to eq('FROM THE CONVERTER')
  end

  it 'falls back to the built-in text converter when registered ones pass' do
    nothing, = converter('nothing', nil)
    registry['text/markdown'] = nothing
    store.write('a.md', 'from the file')
    expect(store.text('a.md', config:)).to eq('from the file')
  end

  it 'reads types that hold text but do not say so with the text converter' do
    registry['application/x-custom'] = RubyLLM.file_store.converter.text
    store.write('subs.custom', "1\nHello", content_type: 'application/x-custom')
    expect(store.text('subs.custom', config:)).to eq("1\nHello")
  end

  it 'builds an OCR converter that keeps its options' do
    expect(RubyLLM.file_store.converter.ocr(model: 'mistral-ocr-latest').options).to eq(model: 'mistral-ocr-latest')
  end

  it 'starts with the built-in converters for PDF, Office, OpenDocument, EPUB and HTML, and no OCR' do
    defaults = RubyLLM::FileStore::Converters.defaults
    converters = RubyLLM::FileStore::Converters
    expect(defaults['application/pdf']).to eq(converters::PDF)
    expect(defaults['text/html']).to eq(converters::HTML)
    expect(defaults.values_at(*converters::Office::TYPES).uniq).to eq([converters::Office])
    expect(defaults.keys).to contain_exactly('application/pdf', 'text/html', *converters::Office::TYPES)
    expect(defaults.values.grep(converters::OCR)).to be_empty
  end

  it 'reads a PDF, a Word file and an EPUB with no configuration, in every store' do
    documents = File.expand_path('../../fixtures/documents', __dir__)
    [RubyLLM.file_store.memory, RubyLLM.file_store.directory(Dir.mktmpdir)].each do |store|
      %w[report.pdf report.docx notes.epub].each { |name| store.write(name, File.binread("#{documents}/#{name}")) }
      expect(store.text('report.pdf')).to start_with('## Page 1')
      expect(store.text('report.docx')).to eq(converters_text('report.docx', documents))
      expect(store.text('notes.epub')).to eq(converters_text('notes.epub', documents))
    end
  end

  def converters_text(name, documents)
    RubyLLM::FileStore::Native.convert_office(File.binread("#{documents}/#{name}"))[:text]
  end

  it 'reads a folder store file from the cache of its version, and a new version anew' do
    store = RubyLLM.file_store.directory(Dir.mktmpdir)
    html = '<p>first <script>x()</script></p>'
    store.write('page.html', html)
    expect(store.text_and_version('page.html')).to eq(["first\n", Digest::SHA256.hexdigest(html)])
    store.write('page.html', '<p>second</p>')
    expect(store.text('page.html')).to eq("second\n")
    store.write('empty.html', '<script>only()</script>')
    expect(store.text('empty.html')).to eq('<script>only()</script>')
  end
end
