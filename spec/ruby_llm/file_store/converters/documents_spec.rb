# frozen_string_literal: true

# The PDF, Office and HTML converters on files LibreOffice wrote
# (spec/fixtures/documents; the flat ODF sources beside them are what it converted).
RSpec.describe 'Document converters', :native do
  let(:fixtures) { File.expand_path('../../../fixtures/documents', __dir__) }
  let(:converter) { RubyLLM.file_store.converter }

  def attachment(bytes, filename = 'file')
    ConverterInput.new(content: bytes, filename:, mime_type: nil)
  end

  def fixture(name)
    attachment(File.binread(File.join(fixtures, name)), name)
  end

  it 'reads a PDF page by page' do
    text = converter.pdf.call(fixture('report.pdf'))
    expect(text).to start_with("## Page 1\nQuarterly Report\nRevenue grew 12 percent in the third quarter")
    expect(text).to include("Region Q2 Q3\nNorth 1200 1450\n")
    expect(text).to include("\n\n## Page 2\nPage two begins here: hiring continues in Lyon and Zürich.\n")
    expect(text.encoding).to eq(Encoding::UTF_8)
  end

  it 'reads Word headings, paragraphs and tables' do
    text = converter.office.call(fixture('report.docx'))
    expect(text).to start_with("# Quarterly Report\nRevenue grew 12 percent")
    expect(text).to include("Costs stayed flat & margins improved.\nRegion | Q2 | Q3\nNorth | 1200 | 1450\n")
    expect(text).to include("## Outlook\nPage two begins here")
  end

  it 'reads Excel sheets as tab-separated rows, empty cells kept in place' do
    expect(converter.office.call(fixture('budget.xlsx'))).to eq(<<~TEXT)
      ## Revenue
      Region\tQ1\tQ2\tTotal
      North\t1200\t1450\t2650
      South\t\t1010\t1

      ## Notes & Risks
      North\tSupplier delay in Zürich
    TEXT
  end

  it 'reads slides in order, tables and all' do
    expect(converter.office.call(fixture('deck.pptx'))).to eq(<<~TEXT)
      ## Slide 1
      Launch Plan
      Ship the beta in March
      Hire two engineers

      ## Slide 2
      Budget
      Item | Cost
      Servers | 4000
    TEXT
  end

  it 'reads HTML without scripts, styles and hidden elements' do
    expect(converter.html.call(fixture('report.html'))).to include("# Quarterly Report\n", "North | 1200 | 1450\n")
    html = '<style>p{}</style><p>Shown</p><script>alert("x")</script><div hidden>secret</div><p>Too</p>'
    expect(converter.html.call(attachment(html))).to eq("Shown\nToo\n")
  end

  it 'returns nil for what it cannot read, so the next converter runs' do
    expect(converter.pdf.call(attachment('not a pdf'))).to be_nil
    expect(converter.office.call(fixture('report.pdf'))).to be_nil
    expect(converter.pdf.call(fixture('report.docx'))).to be_nil
    expect(converter.pdf.call(attachment(nil))).to be_nil
  end

  it 'says why it read nothing' do
    expect(RubyLLM::FileStore::Converters::Builtin.refusal(:convert_pdf, 'plain')).to eq('not a readable PDF: no %PDF header')
    expect(RubyLLM::FileStore::Converters::Builtin.refusal(:convert_html, '<p>x')).to be_nil
  end

  it 'gives read_file the text, through the registry' do
    store = RubyLLM.file_store.memory
    store.write('report.docx', File.binread(File.join(fixtures, 'report.docx')))
    store.write('q3.pdf', File.binread(File.join(fixtures, 'report.pdf')))
    registry = RubyLLM::FileStore::Converters::Office::TYPES.to_h { |type| [type, converter.office] }
    registry['application/pdf'] = converter.pdf
    config = Struct.new(:file_converters).new(registry)
    read_file = RubyLLM::FileStore::Tools::ReadFile.new(store, config:)
    expect(read_file.call(path: 'report.docx')).to include("     4\tRegion | Q2 | Q3\n")
    expect(read_file.call(path: 'q3.pdf')).to include("     1\t## Page 1\n")
    search = RubyLLM::FileStore::Tools::SearchFiles.new(store, config:)
    expect(search.call(pattern: 'Zürich')).to include('report.docx:', 'q3.pdf:')
  end

  it 'falls through to the next converter for a PDF without text' do
    # LibreOffice's PDF of chart.png: one page, an image and no text, as a scan is.
    ocr = ->(_) { 'from OCR' }
    config = Struct.new(:file_converters).new({ 'application/pdf' => [converter.pdf, ocr] })
    store = RubyLLM.file_store.memory
    store.write('scan.pdf', File.binread(File.join(fixtures, 'scan.pdf')))
    expect(store.text('scan.pdf', config:)).to eq('from OCR')
  end
end
