# frozen_string_literal: true

# Hostile input ends quickly, with nil or partial text: time linear in the input,
# archives capped, broken PDFs given up on.
RSpec.describe 'Document converters on hostile input', :large do
  let(:converter) { RubyLLM.file_store.converter }

  def attachment(bytes)
    RubyLLM::FileStore::Converters::LocalAttachment.new(content: bytes, filename: 'hostile', mime_type: nil)
  end

  def refusal(function, bytes)
    RubyLLM::FileStore::Converters::Native.refusal(function, bytes)
  end

  def seconds
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    yield
    Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
  end

  # How much longer 4x the input takes than 1x: about 4 when linear, 16 when
  # quadratic. The best of three runs each, so a busy machine does not decide it.
  def growth(small, large)
    yield small
    best = ->(input) { Array.new(3) { seconds { yield input } }.min }
    best.call(large) / [best.call(small), 1e-4].max
  end

  it 'reads 1 MB of "<" in time linear in its size' do
    ratio = growth('<' * (1 << 20), '<' * (4 << 20)) { |html| converter.html.call(attachment(html)) }
    expect(ratio).to be < 10
    expect(converter.html.call(attachment('<' * (1 << 20)))).to eq("#{'<' * (1 << 20)}\n")
  end

  it 'reads 100,000 unclosed tags in time linear in their number' do
    tags = ->(n) { '<div><b><td>x' * n }
    ratio = growth(tags.call(100_000), tags.call(400_000)) { |html| converter.html.call(attachment(html)) }
    expect(ratio).to be < 10
    expect(converter.html.call(attachment(tags.call(100_000))).count('x')).to eq(100_000)
  end

  it 'reads Word markup nested 100,000 deep in linear time' do
    doc = ->(n) { HostileDocuments.docx("<w:body>#{'<w:tbl><w:tr><w:tc><w:p>' * n}<w:t>deep</w:t>") }
    ratio = growth(doc.call(100_000), doc.call(400_000)) { |bytes| converter.office.call(attachment(bytes)) }
    expect(ratio).to be < 10
    expect(converter.office.call(attachment(doc.call(100_000)))).to eq("deep\n")
  end

  it 'refuses a zip bomb quickly: a gigabyte in a megabyte' do
    data = HostileDocuments.spaces(1024)
    expect(data.bytesize).to be < (2 << 20)
    honest = HostileDocuments.zip([['word/document.xml', data, 1 << 30, 0]])
    lying = HostileDocuments.zip([['word/document.xml', data, 1000, 0]])
    time = seconds do
      expect(converter.office.call(attachment(honest))).to be_nil
      expect(converter.office.call(attachment(lying))).to be_nil
    end
    expect(refusal(:convert_office, honest)).to eq('the archive uncompresses to more than 209715200 bytes')
    expect(refusal(:convert_office, lying)).to match(/broken/)
    expect(time).to be < 5
  end

  it 'refuses parts that are each under the cap and together over it' do
    sheets = (0..2).map { |i| ["xl/worksheets/sheet#{i}.xml", HostileDocuments.spaces(80), 80 << 20, 0] }
    workbook = "<workbook><sheets>#{(0..2).map { |i| "<sheet name='s#{i}' r:id='r#{i}'/>" }.join}</sheets></workbook>"
    rels = "<Relationships>#{(0..2).map { |i| "<Relationship Id='r#{i}' Target='worksheets/sheet#{i}.xml'/>" }.join}" \
           '</Relationships>'
    bomb = HostileDocuments.zip(sheets + [['xl/workbook.xml', *HostileDocuments.deflated(workbook)],
                                          ['xl/_rels/workbook.xml.rels', *HostileDocuments.deflated(rels)]])
    expect(refusal(:convert_office, bomb)).to eq('the archive uncompresses to more than 209715200 bytes')
  end

  it 'refuses an archive of 10,001 entries and does not open nested zips (42.zip)' do
    many = HostileDocuments.zip(Array.new(10_001) { |i| ["f#{i}", [3, 0].pack('CC'), 0, 0] })
    expect(refusal(:convert_office, many)).to eq('the archive has 10001 entries, more than 10000')
    inner = HostileDocuments.zip([['word/document.xml', HostileDocuments.spaces(64), 64 << 20, 0]])
    nested = HostileDocuments.zip([['inner.zip', *HostileDocuments.deflated(inner)]])
    expect(converter.office.call(attachment(nested))).to be_nil
  end

  it 'ends quickly on a PDF with a broken xref or cut short' do
    pdf = File.binread(File.expand_path('../../../fixtures/documents/report.pdf', __dir__))
    broken = pdf[0...pdf.rindex('xref')] + ('xref 0 99999999 trailer << /Root 9 0 R /Size -1 >> ' * 1000)
    time = seconds do
      [broken, pdf[0, pdf.bytesize / 2], pdf.sub('%PDF', '%PDF').tr("\n", "\r")].each do |bytes|
        text = converter.pdf.call(attachment(bytes))
        expect(text).to be_nil.or(be_a(String))
      end
    end
    expect(time).to be < 5
  end
end
