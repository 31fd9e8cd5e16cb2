# frozen_string_literal: true

# A converter registered wrongly is refused as it is registered, saying what is
# wrong, rather than failing in front of the model or being ignored.
RSpec.describe RubyLLM::FileStore::Converters::Registry do
  subject(:registry) { RubyLLM::FileStore::Converters.defaults }

  let(:reader) { ->(file) { file.content.to_s } }

  it 'takes MIME types, families, */* and a converter, an Array of them or nil' do
    registry['application/x-subrip'] = reader
    registry['image/*'] = [reader, RubyLLM.file_store.converter.ocr]
    registry['*/*'] = nil
    registry.store('text/x-c++', RubyLLM.file_store.converter.text)
    registry.merge!('application/vnd.ms-excel' => Class.new { def call(file, **) = file }.new)

    expect(registry.keys).to include('application/x-subrip', 'image/*', '*/*', 'text/x-c++', 'application/vnd.ms-excel')
  end

  it 'refuses a key that is not a MIME type or a family' do
    expect { registry['pdf'] = reader }.to raise_error(
      ArgumentError, 'config.file_converters["pdf"]: "pdf" is not a MIME type ("application/pdf"), a family ' \
                     '("image/*") or "*/*"'
    )
    expect { registry[:'application/pdf'] = reader }.to raise_error(ArgumentError, %r{:"application/pdf" is not})
    expect { registry.merge!('image' => reader) }.to raise_error(ArgumentError, /"image" is not a MIME type/)
    expect(registry.keys).not_to include('pdf', 'image', :'application/pdf')
  end

  it 'refuses a converter that does not answer call, or whose call takes no file' do
    expect { registry['application/pdf'] = Object.new.tap { |o| def o.inspect = '#<MyReader>' } }.to raise_error(
      ArgumentError, 'config.file_converters["application/pdf"]: #<MyReader> does not answer call: a converter ' \
                     'is an object whose call(file) returns its text or nil, such as ->(file) { ... }'
    )
    expect { registry['text/csv'] = [reader, 'not a converter'] }.to raise_error(ArgumentError, /"not a converter" does/)
    expect { registry['text/csv'] = -> { 'text' } }.to raise_error(ArgumentError, /does not take one argument/)
    expect(registry['application/pdf']).to eq(RubyLLM::FileStore::Converters::PDF)
    expect(registry).not_to have_key('text/csv')
  end

  it 'checks a whole registry given to FileStore.file_converters=' do
    before = RubyLLM::FileStore.file_converters
    expect { RubyLLM::FileStore.file_converters = { 'pdf' => reader } }.to raise_error(ArgumentError, /"pdf"/)
    expect { RubyLLM::FileStore.file_converters = [reader] }.to raise_error(ArgumentError, /takes a Hash/)
    RubyLLM::FileStore.file_converters = {}
    RubyLLM::FileStore.file_converters['text/csv'] = reader
    expect(RubyLLM::FileStore.file_converters).to eq('text/csv' => reader)
    expect { RubyLLM::FileStore.file_converters['csv'] = reader }.to raise_error(ArgumentError)
  ensure
    RubyLLM::FileStore.file_converters = before
  end
end
