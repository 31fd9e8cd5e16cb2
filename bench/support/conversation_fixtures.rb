# frozen_string_literal: true

# The document and the tool of the conversation benchmark.
module ConversationFixtures
  RESULT_SIZE = 30_000

  # A real PDF of +pages+ pages of text, written to +path+.
  def self.pdf(path, pages:)
    objects = ['<< /Type /Catalog /Pages 2 0 R >>', nil, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>']
    kids = (1..pages).map do |page|
      lines = (1..45).map { |n| "(Chapter #{page}, line #{n}: revenue, budgets and risks by region, in detail.) Tj T*" }
      stream = "BT /F1 10 Tf 12 TL 50 760 Td #{lines.join(' ')} ET"
      objects << "<< /Length #{stream.bytesize} >>\nstream\n#{stream}\nendstream"
      objects << "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents #{objects.size} 0 R " \
                 '/Resources << /Font << /F1 3 0 R >> >> >>'
      "#{objects.size} 0 R"
    end
    objects[1] = "<< /Type /Pages /Kids [#{kids.join(' ')}] /Count #{pages} >>"
    File.binwrite(path, serialize(objects))
    path
  end

  def self.serialize(objects)
    pdf = +"%PDF-1.4\n"
    offsets = objects.each_with_index.map do |object, index|
      pdf.bytesize.tap { pdf << "#{index + 1} 0 obj\n#{object}\nendobj\n" }
    end
    xref = pdf.bytesize
    pdf << "xref\n0 #{objects.size + 1}\n0000000000 65535 f \n"
    offsets.each { |offset| pdf << format("%010d 00000 n \n", offset) }
    pdf << "trailer\n<< /Size #{objects.size + 1} /Root 1 0 R >>\nstartxref\n#{xref}\n%%EOF\n"
  end

  # A tool whose result is RESULT_SIZE characters of report lines.
  class SalesReport < RubyLLM::Tool
    description 'Fetches the latest sales report'

    def execute
      line = 'region %-6<region>s month %<month>02d revenue %<revenue>07d units %<units>05d'
      rows = (0..).lazy.map do |i|
        format(line, region: %w[north south east west][i % 4], month: (i % 12) + 1, revenue: i * 37 % 1_000_000,
                     units: i * 11 % 100_000)
      end
      rows.take(RESULT_SIZE / 60).to_a.join("\n").ljust(RESULT_SIZE, ' ')[0, RESULT_SIZE]
    end
  end
end
