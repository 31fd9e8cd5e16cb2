# frozen_string_literal: true

# Writes a real PDF of text pages (Helvetica, one text object a page), for the
# demo, the conversation benchmark and the README's examples: a reader takes it
# as any PDF, and the pdf converter reads its text back.
#
#   SamplePDF.write("contract.pdf", [["Contract", "1. Termination: 60 days' notice."]])
module SamplePDF
  module_function

  # Writes +pages+ (an Array of pages, each an Array of lines) to +path+ and
  # returns +path+.
  def write(path, pages)
    objects = ['<< /Type /Catalog /Pages 2 0 R >>', nil, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>']
    kids = pages.map do |lines|
      shown = lines.map { |line| "(#{line.gsub(/[\\()]/) { |char| "\\#{char}" }}) Tj T*" }
      stream = "BT /F1 10 Tf 12 TL 50 760 Td #{shown.join(' ')} ET"
      objects << "<< /Length #{stream.bytesize} >>\nstream\n#{stream}\nendstream"
      objects << "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents #{objects.size} 0 R " \
                 '/Resources << /Font << /F1 3 0 R >> >> >>'
      "#{objects.size} 0 R"
    end
    objects[1] = "<< /Type /Pages /Kids [#{kids.join(' ')}] /Count #{pages.size} >>"
    File.binwrite(path, serialize(objects))
    path
  end

  # The bytes of a PDF of +objects+ (numbered from 1, the first the catalog), with
  # its cross-reference table: binary-safe, for streams of deflated bytes too.
  def serialize(objects, version: '1.4')
    pdf = String.new("%PDF-#{version}\n", encoding: Encoding::BINARY)
    offsets = objects.each_with_index.map do |object, index|
      pdf.bytesize.tap { pdf << "#{index + 1} 0 obj\n".b << object.b << "\nendobj\n".b }
    end
    xref = pdf.bytesize
    pdf << "xref\n0 #{objects.size + 1}\n0000000000 65535 f \n"
    offsets.each { |offset| pdf << format("%010d 00000 n \n", offset) }
    pdf << "trailer\n<< /Size #{objects.size + 1} /Root 1 0 R >>\nstartxref\n#{xref}\n%%EOF\n"
  end
end
