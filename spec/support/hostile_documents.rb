# frozen_string_literal: true

require 'zlib'
require_relative '../../examples/support/sample_pdf'

# Builds hostile files byte by byte, since no tool writes them on purpose.
module HostileDocuments
  module_function

  # A zip of +entries+, each [name, raw deflate data, declared size, crc].
  def zip(entries)
    local = String.new(encoding: Encoding::BINARY)
    central = String.new(encoding: Encoding::BINARY)
    entries.each do |name, data, size, crc|
      offset = local.bytesize
      common = [20, 0, 8, 0, 0, crc, data.bytesize, [size, 0xFFFFFFFF].min, name.bytesize, 0].pack('vvvvvVVVvv')
      local << 'PK' << [3, 4].pack('CC') << common << name << data
      central << 'PK' << [1, 2, 20].pack('CCv') << common << [0, 0, 0, 0, offset].pack('vvvVV') << name
    end
    local + central + ['PK', 5, 6, 0, 0, entries.size, entries.size, central.bytesize, local.bytesize, 0]
                      .pack('a2CCvvvvVVv')
  end

  # Raw deflate data for +megabytes+ MB of spaces: one fully flushed block of a
  # megabyte repeated, about a kilobyte each, as a zip bomb packs them.
  def spaces(megabytes)
    deflate = Zlib::Deflate.new(Zlib::BEST_COMPRESSION, -Zlib::MAX_WBITS)
    block = deflate.deflate(' ' * (1 << 20), Zlib::FULL_FLUSH)
    deflate.close
    (block * megabytes) << [3, 0].pack('CC')
  end

  # [raw deflate data, size, crc] of +bytes+.
  def deflated(bytes)
    deflate = Zlib::Deflate.new(Zlib::BEST_SPEED, -Zlib::MAX_WBITS)
    [deflate.deflate(bytes, Zlib::FINISH), bytes.bytesize, Zlib.crc32(bytes)].tap { deflate.close }
  end

  # A .docx whose document.xml is +xml+.
  def docx(xml)
    zip([['word/document.xml', *deflated(xml)]])
  end

  # [raw deflate data, size, crc] of +unit+ repeated +times+ times, deflated a
  # piece at a time, so the whole is never a Ruby string.
  def deflated_repeat(unit, times)
    deflate = Zlib::Deflate.new(Zlib::BEST_SPEED, -Zlib::MAX_WBITS)
    piece = unit * 10_000
    data = String.new(encoding: Encoding::BINARY)
    crc = 0
    (times / 10_000).times do
      data << deflate.deflate(piece)
      crc = Zlib.crc32(piece, crc)
    end
    data << deflate.finish
    deflate.close
    [data, piece.bytesize * (times / 10_000), crc]
  end

  # A .docx of +count+ empty paragraphs (a few hundred KB, deflated a piece at a time):
  # its worker holds about 6 bytes of XML a paragraph, and it gives no text.
  def empty_paragraphs(count)
    head = '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>'
    tail = '</w:body></w:document>'
    parts = [head, *Array.new(count / 10_000, '<w:p/>' * 10_000), tail]
    deflate = Zlib::Deflate.new(Zlib::BEST_SPEED, -Zlib::MAX_WBITS)
    data = parts.map { |part| deflate.deflate(part) }.join << deflate.finish.tap { deflate.close }
    zip([['word/document.xml', data, parts.sum(&:bytesize), parts.reduce(0) { |crc, part| Zlib.crc32(part, crc) }]])
  end

  # A zip of [name, bytes] parts, each deflated.
  def parts(named)
    zip(named.map { |name, bytes| [name, *deflated(bytes)] })
  end

  ODF_NS = 'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ' \
           'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ' \
           'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" ' \
           'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"'

  # A table of one row repeated a million times, of a cell repeated across
  # every column: gigabytes of text from a hundred bytes.
  REPEATED_TABLE = '<table:table><table:table-row table:number-rows-repeated="1048576">' \
                   '<table:table-cell table:number-columns-repeated="16384"><text:p>x</text:p>' \
                   '</table:table-cell></table:table-row></table:table>'

  # An .odt whose text is +body+ and whose master styles are +styles+.
  def odt(body, styles = '')
    parts([['content.xml', "<office:document-content #{ODF_NS}><office:body><office:text>#{body}" \
                           '</office:text></office:body></office:document-content>'],
           ['styles.xml', "<office:document-styles #{ODF_NS}><office:master-styles>#{styles}" \
                          '</office:master-styles></office:document-styles>']])
  end

  # An .odt of +count+ footnotes, each holding REPEATED_TABLE.
  def footnotes_with_tables(count)
    odt("<text:p>#{"<text:note><text:note-body>#{REPEATED_TABLE}</text:note-body></text:note>" * count}</text:p>")
  end

  # An .odt of +count+ comments, each holding REPEATED_TABLE.
  def comments_with_tables(count)
    odt("<text:p>#{"<office:annotation>#{REPEATED_TABLE}</office:annotation>" * count}</text:p>")
  end

  # An .odt of +count+ distinct comments.
  def many_comments(count)
    odt("<text:p>#{Array.new(count) { |i| "<office:annotation><text:p>comment #{i}</text:p></office:annotation>" }.join}</text:p>")
  end

  # An .odt of +count+ distinct page headers.
  def many_headers(count)
    headers = Array.new(count) do |i|
      "<style:master-page><style:header><text:p>header #{i}</text:p></style:header></style:master-page>"
    end
    odt('<text:p>body</text:p>', headers.join)
  end

  # An EPUB whose spine lists its one page +count+ times.
  def long_spine(count, page = '<html><body></body></html>')
    container = '<container><rootfiles><rootfile full-path="OEBPS/book.opf"/></rootfiles></container>'
    opf = '<package><manifest><item id="p" href="p.xhtml" media-type="application/xhtml+xml"/></manifest>' \
          "<spine>#{'<itemref idref="p"/>' * count}</spine></package>"
    parts([['META-INF/container.xml', container], ['OEBPS/book.opf', opf], ['OEBPS/p.xhtml', page]])
  end

  # A one-page PDF drawing +content+ with Helvetica as /F1; its stream
  # compressed when +deflate+.
  def pdf(content, deflate: false)
    filter = ''
    if deflate
      content = Zlib::Deflate.deflate(content, Zlib::BEST_COMPRESSION)
      filter = ' /Filter /FlateDecode'
    end
    objects = ['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
               '<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
               "<< /Length #{content.bytesize}#{filter} >>\nstream\n".b + content.b + "\nendstream".b,
               '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>']
    SamplePDF.serialize(objects, version: '1.5')
  end

  # A content stream of about +bytes+ bytes showing one letter again and again.
  def shows(bytes)
    "BT /F1 12 Tf 72 700 Td #{'(x) Tj ' * (bytes / 7)}ET"
  end
end
