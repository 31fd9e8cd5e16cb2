# frozen_string_literal: true

RSpec.describe RubyLLM::FileStore::Memory do
  it_behaves_like 'a RubyLLM file store' do
    let(:store) { described_class.new }
  end

  it 'keeps the content type it is given' do
    store = described_class.new
    expect(store.write('notes', 'x', content_type: 'text/markdown').content_type).to eq('text/markdown')
    expect(store['notes'].content_type).to eq('text/markdown')
  end

  it 'hands out copies, so changing what read returns changes no file' do
    store = described_class.new
    store.write('a.txt', 'abc')
    store.read('a.txt') << 'def'
    expect(store.read('a.txt')).to eq('abc')
  end
end
