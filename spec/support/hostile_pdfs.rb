# frozen_string_literal: true

require 'zlib'
require_relative '../../examples/support/sample_pdf'

# PDFs that ended the whole Ruby process when the converters ran in it.
module HostilePDFs
  module_function

  # A PDF of +count+ form fields sharing one value of +megabytes+ MB: a reader that
  # copies each field's value asks for count x megabytes. It ended the whole process
  # when the converters ran in it; now it ends one convert worker.
  def form_fields_sharing_value(count, megabytes)
    fields = Array.new(count) { |i| "#{7 + i} 0 R" }.join(' ')
    objects = ["<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [#{fields}] >> >>",
               '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
               '<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
               "<< /Length 10 >>\nstream\nBT (x) Tj ET\nendstream",
               '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
               "(#{'A' * (megabytes << 20)})"]
    count.times { |i| objects << "<< /FT /Tx /T (f#{i}) /V 6 0 R >>" }
    SamplePDF.serialize(objects, version: '1.5')
  end

  # A PDF whose compressed object stream lists one object id +count+ times over one
  # string of +megabytes+ MB: a parser that reads each entry asks for count x megabytes.
  def object_stream_fan(count, megabytes)
    index = Array.new(count) { '6 0 ' }.join
    data = Zlib::Deflate.deflate("#{index}(#{'A' * (megabytes << 20)})")
    objects = ['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
               '<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
               "<< /Length 10 >>\nstream\nBT (x) Tj ET\nendstream",
               '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
               "<< /Type /ObjStm /N #{count} /First #{index.bytesize} /Filter /FlateDecode " \
               "/Length #{data.bytesize} >>\nstream\n".b + data + "\nendstream".b]
    SamplePDF.serialize(objects, version: '1.5')
  end

  # +count+ fonts sharing one /Widths of +widths+ references, each the start of a chain
  # of +chain+ references to the number: every width read follows the chain, which no
  # step of the budget counts, so the conversion costs CPU time in proportion to
  # count x widths x chain: only the CPU ceiling ends it. With no ceiling, on a 2-core
  # machine, 1,000 x 10,000 x 100 took 21 s and 1,000 x 30,000 x 100 took 67 s; a
  # chain of 400 is not followed, and converts in half a second.
  def fonts_sharing_chained_widths(count, widths, chain)
    font = '<< /Type /Font /Subtype /TrueType /BaseFont /Arial /FirstChar 0 /LastChar 255 /Widths 6 0 R >>'
    names = Array.new(count) { |i| "/F#{i} #{7 + chain + i} 0 R" }.join(' ')
    shows = Array.new(count) { |i| "/F#{i} 12 Tf (a) Tj" }.join(' ')
    content = "BT 72 700 Td #{shows} ET"
    objects = ['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
               "<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << #{names} >> >> >>",
               "<< /Length #{content.bytesize} >>\nstream\n#{content}\nendstream",
               '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>', "[#{'7 0 R ' * widths}]"]
    objects.concat(Array.new(chain) { |link| link + 1 == chain ? '500' : "#{8 + link} 0 R" })
    objects.concat([font] * count)
    SamplePDF.serialize(objects, version: '1.7')
  end
end
