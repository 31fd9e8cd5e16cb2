# frozen_string_literal: true

# What the converters read of documents LibreOffice wrote from the flat ODF
# sources in spec/fixtures/documents (its `generate` script writes them): dates,
# hidden sheets, headers and notes, OpenDocument, EPUB, charsets, empty files.
RSpec.describe 'Document formats', :native do
  let(:fixtures) { File.expand_path('../../../fixtures/documents', __dir__) }
  let(:converter) { RubyLLM.file_store.converter }

  def attachment(bytes, filename = 'file')
    ConverterInput.new(content: bytes, filename:, mime_type: nil)
  end

  def office(name)
    converter.office.call(attachment(File.binread(File.join(fixtures, name)), name))
  end

  it 'reads Excel dates as ISO dates and times, in either date system, and marks hidden sheets' do
    %w[dates.xlsx dates1904.xlsx].each do |name|
      text = office(name)
      expect(text).to include("INV-101\t2024-03-15\t2024-04-14\t1250.5\n", "14:30:00\t2024-03-15T09:45:00\n")
      expect(text).to include("## Rates (hidden)\nInternal rate\t0.07\n")
    end
  end

  it 'reads Word headers, footers, footnotes, endnotes and comments' do
    text = office('notes.docx')
    expect(text).to include('on a rainy Tuesday[^1] and approved', "- Open a warehouse in Porto\n")
    expect(text).to include("## Headers and footers\nAcme Corporation confidential\nPrepared for the supervisory board\n")
    expect(text).to include("## Footnotes\n[^1] Minutes taken by the company secretary.\n")
    expect(text).to include("## Endnotes\n[^e1] Travel booked through the usual agency.\n")
    expect(text).to include("## Comments\nAna Ruiz: Please confirm the venue before publishing.\n")
  end

  it 'reads OpenDocument text, spreadsheets and presentations, zipped and flat' do
    expect(office('notes.odt')).to eq(office('notes.docx'))
    expect(office('notes.fodt')).to eq(office('notes.docx'))
    expect(office('dates.ods')).to include("INV-102\t2024-02-29\t2024-03-30\t980.00\n", '## Rates (hidden)')
    expect(office('deck.odp')).to eq(office('deck.pptx'))
  end

  it 'reads an EPUB book in reading order' do
    text = office('notes.epub')
    expect(text.index('Board Minutes')).to be < text.index('Carried unanimously')
    expect(text).to include('Travel booked through the usual agency.')
  end

  it 'reads HTML in the charset it declares, or windows-1252 when it declares none and is not UTF-8' do
    latin1 = "<meta charset=\"iso-8859-1\"><p>Caf\xE9 in Z\xFCrich</p>".b
    expect(converter.html.call(attachment(latin1))).to eq("Café in Zürich\n")
    shift_jis = '<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS"><p>日本</p>'.encode('Shift_JIS')
    expect(converter.html.call(attachment(shift_jis.b))).to eq("日本\n")
    expect(converter.html.call(attachment("<p>Z\xFCrich</p>".b))).to eq("Zürich\n")
  end

  it 'gives nil for a document or page with no text, so the next converter runs' do
    expect(office('empty.docx')).to be_nil
    expect(converter.html.call(attachment('<html><body><img src="a.png"></body></html>'))).to be_nil
    config = Struct.new(:file_converters).new({ 'text/html' => [converter.html, ->(_) { 'next' }] })
    store = RubyLLM.file_store.memory
    store.write('blank.html', '<html><head><title>T</title></head><body> </body></html>')
    expect(store.text('blank.html', config:)).to eq('next')
  end

  it 'reads OpenDocument and EPUB files a store holds, by the types it detects from their names' do
    registry = RubyLLM::FileStore::Converters::Office::TYPES.to_h { |type| [type, converter.office] }
    config = Struct.new(:file_converters).new(registry)
    store = RubyLLM.file_store.memory
    %w[notes.odt notes.fodt notes.epub dates.fods].each do |name|
      store.write(name, File.binread(File.join(fixtures, name)))
    end
    expect(store.text('notes.odt', config:)).to eq(office('notes.docx'))
    expect(store.text('notes.fodt', config:)).to eq(office('notes.docx'))
    expect(store.text('notes.epub', config:)).to include('Carried unanimously')
    expect(store.text('dates.fods', config:)).to include('## Rates (hidden)')
  end
end
