# frozen_string_literal: true

require 'timeout'

# Hostile input ends quickly, with nil or partial text: time linear in the input,
# archives capped, broken PDFs given up on, and one budget of text, work and
# time per conversion, past which the text ends "[cut: why]".
RSpec.describe 'Document converters on hostile input', :large do
  let(:converter) { RubyLLM.file_store.converter }

  def attachment(bytes)
    ConverterInput.new(content: bytes, filename: 'hostile', mime_type: nil)
  end

  def refusal(function, bytes)
    RubyLLM::FileStore::Converters::Builtin.refusal(function, bytes)
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

  def text_and_seconds(bytes, kind = :office)
    text = nil
    time = seconds { text = converter.public_send(kind).call(attachment(bytes)) }
    [text, time]
  end

  def rss
    File.read('/proc/self/status')[/VmRSS:\s+(\d+)/, 1].to_i << 10
  end

  {
    '160 footnotes each holding a repeated table (1 KB)' => -> { HostileDocuments.footnotes_with_tables(160) },
    '40 footnotes each holding a repeated table' => -> { HostileDocuments.footnotes_with_tables(40) },
    '40 comments each holding a repeated table' => -> { HostileDocuments.comments_with_tables(40) },
    'an EPUB of 8 million spine entries to one empty page' => -> { HostileDocuments.long_spine(8_000_000) },
    'an EPUB of 1 million spine entries' => -> { HostileDocuments.long_spine(1_000_000, '<p>page</p>') }
  }.each do |row, build|
    it "cuts #{row} within its budget in under two seconds, saying so" do
      bytes = build.call
      text, time = text_and_seconds(bytes)
      expect(time).to be < 2
      expect(text).to match(/(\A|\n)\[cut: [^\]]+\]\n\z/)
      expect(text.bytesize).to be <= (64 << 20) + 100
    end
  end

  it 'reads 60,000 comments and 50,000 headers in under two seconds each, each once' do
    comments, time = text_and_seconds(HostileDocuments.many_comments(60_000))
    expect(time).to be < 2
    expect(comments.scan(/^comment \d+$/).size).to eq(60_000)
    headers, time = text_and_seconds(HostileDocuments.many_headers(50_000))
    expect(time).to be < 2
    expect(headers.scan(/^header \d+$/).size).to eq(50_000)
  end

  it 'reads a PDF with a 60 MB content stream up to its work budget, decoding it a piece at a time' do
    pdf = HostileDocuments.pdf(HostileDocuments.shows(60 << 20))
    GC.start
    before = rss
    peak = before
    sampler = Thread.new { loop { (peak = [peak, rss].max) && sleep(0.02) } }
    text, time = text_and_seconds(pdf, :pdf)
    sampler.kill
    # About 2 seconds of the worker's CPU, after lopdf's parse of the file; on a busy
    # machine the wall-clock time is longer (it ran for minutes before the budget).
    expect(time).to be < 8
    # Cut where its steps run out, the same place on any machine, saying so.
    expect(text).to start_with("## Page 1\nx")
    expect(text).to end_with("x\n[cut: the document takes more than 50000000 steps to read]\n")
    # Decoded whole, the stream took 2.1 GB; a piece at a time, the file and its text.
    expect(peak - before).to be < (600 << 20)
  end

  it 'says a PDF page over the stream cap was cut, so it is not taken for a scan and sent to OCR' do
    pdf = HostileDocuments.pdf(HostileDocuments.shows(65 << 20), deflate: true)
    expect(pdf.bytesize).to be < (1 << 20)
    expect(converter.pdf.call(attachment(pdf))).to eq("## Page 1\n[cut: the page's content is over 64 MB]\n")
  end

  it 'stops a conversion its caller gave up on: its memory is free again within a second' do
    part = HostileDocuments.deflated_repeat('<w:p><w:r><w:t>word </w:t></w:r></w:p>', 5_000_000)
    docx = HostileDocuments.zip([['word/document.xml', *part]])
    GC.start
    before = rss
    peak = before
    worker_peak = 0
    sampler = Thread.new do
      loop do
        peak = [peak, rss].max
        worker_peak = [worker_peak, worker_rss].max
        sleep 0.02
      end
    end
    3.times do
      Timeout.timeout(0.4) { RubyLLM::FileStore::Native.convert_office(docx) }
    rescue Timeout::Error
      nil
    end
    sampler.kill
    sleep 1
    # The conversion grew in its worker, never in the app, and ended with it.
    expect(worker_peak).to be > (64 << 20)
    expect(peak - before).to be < (64 << 20)
    expect(worker_rss).to be < (64 << 20)
  end

  # The resident memory of this process's convert workers, together.
  def worker_rss
    ConvertWorkers.rss
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
