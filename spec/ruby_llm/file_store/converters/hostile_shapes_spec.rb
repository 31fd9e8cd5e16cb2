# frozen_string_literal: true

require 'open3'
require 'rbconfig'

# Shapes of hostile input a second attack run found through the release
# extension: a PDF page tree lying about its size aborted the process, a tag of
# 200,000 attributes held it for minutes, a huge shared string took seconds and
# hundreds of MB, and an encrypted EPUB page was read out as gibberish. Each is
# converted in a child process limited to 1 GB of address space, as an
# abort ends it without a word.
RSpec.describe 'Document converters on new shapes of hostile input', :large do
  def count_lie
    page = '<< /Type /Page /Parent %d 0 R /Contents 5 0 R /Resources << /Font << /F1 4 0 R >> >> >>'
    content = 'BT /F1 12 Tf 72 700 Td (readable text) Tj ET'
    SamplePDF.serialize(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R 6 0 R] /Count 2 >>',
                         format(page, 2), '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
                         "<< /Length #{content.size} >>\nstream\n#{content}\nendstream",
                         '<< /Type /Pages /Parent 2 0 R /Kids [7 0 R] /Count 68719476736 >>', format(page, 6)],
                        version: '1.7')
  end

  def encrypted_epub
    encryption = '<encryption xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData>' \
                 '<enc:CipherData><enc:CipherReference URI="OEBPS/p.xhtml"/></enc:CipherData>' \
                 '</enc:EncryptedData></encryption>'
    opf = '<package><manifest><item id="p" href="p.xhtml" media-type="application/xhtml+xml"/>' \
          '<item id="q" href="q.xhtml" media-type="application/xhtml+xml"/></manifest>' \
          '<spine><itemref idref="p"/><itemref idref="q"/></spine></package>'
    HostileDocuments.parts(
      'mimetype' => 'application/epub+zip',
      'META-INF/container.xml' => '<container><rootfiles><rootfile full-path="OEBPS/book.opf"/></rootfiles></container>',
      'META-INF/encryption.xml' => encryption, 'OEBPS/book.opf' => opf,
      'OEBPS/p.xhtml' => 'QMDZIQQHRJKMORPGXNRRSRKRDPHTMLDAQ', 'OEBPS/q.xhtml' => '<p>Clear page</p>'
    )
  end

  def shared_string_xlsx
    HostileDocuments.parts(
      'xl/workbook.xml' => '<workbook xmlns:r="r"><sheets><sheet name="S" r:id="rId1"/></sheets></workbook>',
      'xl/_rels/workbook.xml.rels' => '<Relationships><Relationship Id="rId1" Target="worksheets/s.xml"/>' \
                                      '</Relationships>',
      'xl/worksheets/s.xml' => "<worksheet><sheetData>#{'<row><c t="s"><v>0</v></c></row>' * 1000}" \
                               '</sheetData></worksheet>',
      'xl/sharedStrings.xml' => "<sst><si><t>#{'s' * (150 << 20)}</t></si></sst>"
    )
  end

  # Converts +bytes+ with +function+ in a child limited to 1 GB of address space:
  # its exit status, the seconds the conversion took, and the text or refusal.
  def convert_in_child(function, bytes)
    script = <<~RUBY
      $LOAD_PATH.unshift(#{File.expand_path('../../../../lib', __dir__).inspect})
      require 'ruby_llm/file_store'
      bytes = $stdin.binmode.read
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      converted = RubyLLM::FileStore::Native.#{function}(bytes)
      $stdout.write(Marshal.dump([Process.clock_gettime(Process::CLOCK_MONOTONIC) - started,
                                  converted[:text] || converted[:refusal]]))
    RUBY
    command = "ulimit -v #{1 << 20} && exec #{RbConfig.ruby.shellescape} -e #{script.shellescape}"
    out, _err, status = Open3.capture3(command, stdin_data: bytes, binmode: true)
    [status, *(status.success? ? Marshal.load(out) : [nil, nil])] # rubocop:disable Security/MarshalLoad
  end

  it 'reads a PDF whose page tree claims 2^36 pages, instead of aborting the process' do
    status, time, text = convert_in_child(:convert_pdf, count_lie)
    expect(status.exitstatus).to eq(0)
    expect(time).to be < 2
    expect(text).to eq("## Page 1\nreadable text\n\n## Page 2\nreadable text\n")
  end

  it 'reads an HTML tag of 200,000 attributes up to its work budget, saying it was cut' do
    html = "<p>before</p><p#{Array.new(200_000) { |i| " a#{i}=\"\"" }.join}>attrs</p>"
    status, time, text = convert_in_child(:convert_html, html)
    expect(status.exitstatus).to eq(0)
    # Each attribute costs a step for every one before it in its tag (it took over 60 s
    # before the budget); the same cut on any machine.
    expect(time).to be < 8
    expect(text).to eq("before\n[cut: the document takes more than 50000000 steps to read]\n")
  end

  it 'keeps a cell of a 150 MB shared string to what Excel holds, in a second' do
    status, time, text = convert_in_child(:convert_office, shared_string_xlsx)
    expect(status.exitstatus).to eq(0)
    expect(time).to be < 1.5
    expect(text.lines[1].chomp).to eq('s' * (32_767 * 4))
  end

  it 'does not read out the pages an EPUB lists as encrypted' do
    status, _time, text = convert_in_child(:convert_office, encrypted_epub)
    expect(status.exitstatus).to eq(0)
    expect(text).to eq("Clear page\n[pages not read, encrypted: 1]\n")
  end
end
