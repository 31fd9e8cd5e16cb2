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
end
