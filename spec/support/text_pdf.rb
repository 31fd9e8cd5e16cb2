# frozen_string_literal: true

require 'zlib'

# Writes PDFs of plain text as a word processor's "print to PDF" does for a simple
# document: A4 pages of wrapped lines in Helvetica (WinAnsiEncoding), each page's
# content stream deflated, with a cross-reference table. For fixtures and benches
# that need real PDFs of known text.
#
#   File.binwrite("contract.pdf", TextPDF.from_markdown(File.read("contract.md")))
module TextPDF
  LINES_PER_PAGE = 56
  WIDTH = 95

  module_function

  # A PDF of +text+'s Markdown: headings in bold, paragraphs wrapped.
  def from_markdown(text)
    lines = text.each_line(chomp: true).flat_map do |line|
      next [[:bold, line.sub(/\A#+\s*/, '')]] if line.start_with?('#')
      next [[:regular, '']] if line.strip.empty?

      wrap(line).map { |part| [:regular, part] }
    end
    build(lines.each_slice(LINES_PER_PAGE).to_a)
  end

  def wrap(line)
    line.scan(/\S.{0,#{WIDTH - 1}}(?=\s|\z)|\S+/o)
  end

  # A PDF of +pages+, each an Array of +[font, text]+ lines.
  def build(pages)
    objects = { 1 => '<< /Type /Catalog /Pages 2 0 R >>',
                3 => font('Helvetica'), 4 => font('Helvetica-Bold') }
    kids = pages.each_with_index.map do |lines, index|
      page = 5 + (2 * index)
      content = 6 + (2 * index)
      objects[page] = "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents #{content} 0 R " \
                      '/Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> >>'
      objects[content] = stream(content_of(lines))
      "#{page} 0 R"
    end
    objects[2] = "<< /Type /Pages /Kids [#{kids.join(' ')}] /Count #{kids.size} >>"
    serialize(objects)
  end

  def font(name)
    "<< /Type /Font /Subtype /Type1 /BaseFont /#{name} /Encoding /WinAnsiEncoding >>"
  end

  def content_of(lines)
    body = lines.map do |font, text|
      escaped = text.encode('Windows-1252', undef: :replace).b.gsub(/[\\()]/) { |c| "\\#{c}" }
      "/#{font == :bold ? 'F2' : 'F1'} 10 Tf (#{escaped}) Tj T*"
    end
    "BT 13 TL 56 790 Td\n#{body.join("\n")}\nET"
  end

  def stream(data)
    deflated = Zlib::Deflate.deflate(data.b)
    "<< /Length #{deflated.bytesize} /Filter /FlateDecode >>\nstream\n#{deflated}\nendstream".b
  end

  def serialize(objects)
    out = "%PDF-1.4\n%\xE2\xE3\xCF\xD3\n".b
    offsets = objects.keys.sort.map do |number|
      offset = out.bytesize
      out << "#{number} 0 obj\n".b << objects[number].b << "\nendobj\n".b
      offset
    end
    xref = out.bytesize
    out << "xref\n0 #{offsets.size + 1}\n0000000000 65535 f \n".b
    offsets.each { |offset| out << format("%010d 00000 n \n", offset).b }
    out << "trailer\n<< /Size #{offsets.size + 1} /Root 1 0 R >>\nstartxref\n#{xref}\n%%EOF\n".b
  end
end
