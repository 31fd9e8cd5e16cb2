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

  it 'keeps a registry of its own where ruby_llm is not loaded' do
    skip 'ruby_llm is loaded: its configuration holds the converters' if defined?(RubyLLM::Configuration)

    expect(RubyLLM::FileStore.file_converters).to be_a(Hash)
  end
end
