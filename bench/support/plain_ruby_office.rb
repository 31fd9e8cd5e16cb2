# frozen_string_literal: true

require 'zlib'

# The way a Ruby gem without a native core reads Office files: walk the zip's
# central directory, inflate the parts with Zlib, and pull the text out with
# regular expressions. The baseline the Office converter is measured against.
module PlainRubyOffice
  module_function

  # The text of a .docx, .xlsx or .pptx in +bytes+.
  def text(bytes)
    parts = entries(bytes)
    if parts['word/document.xml']
      paragraphs(inflate(bytes, parts['word/document.xml']), 'w')
    elsif parts['xl/workbook.xml']
      sheets(bytes, parts)
    else
      parts.keys.grep(%r{\Appt/slides/slide\d+\.xml\z}).sort_by { |n| n[/\d+/].to_i }
           .map { |name| paragraphs(inflate(bytes, parts[name]), 'a') }.join("\n")
    end
  end

  # Name => [local header offset, compressed size, method] from the central directory.
  def entries(bytes)
    at = bytes.rindex("PK\x05\x06".b)
    count, _size, offset = bytes.byteslice(at + 10, 10).unpack('vVV')
    Array.new(count).each_with_object({}) do |_, found|
      method, = bytes.byteslice(offset + 10, 2).unpack('v')
      csize, _usize, name_len, extra_len, comment_len = bytes.byteslice(offset + 20, 14).unpack('VVvvv')
      local, = bytes.byteslice(offset + 42, 4).unpack('V')
      found[bytes.byteslice(offset + 46, name_len)] = [local, csize, method]
      offset += 46 + name_len + extra_len + comment_len
    end
  end

  def inflate(bytes, (local, csize, method))
    name_len, extra_len = bytes.byteslice(local + 26, 4).unpack('vv')
    data = bytes.byteslice(local + 30 + name_len + extra_len, csize)
    text = method.zero? ? data : Zlib::Inflate.new(-Zlib::MAX_WBITS).inflate(data)
    text.force_encoding(Encoding::UTF_8)
  end

  def paragraphs(xml, prefix)
    xml.scan(%r{<#{prefix}:p[ >].*?</#{prefix}:p>}m).map do |paragraph|
      paragraph.scan(%r{<#{prefix}:t(?: [^>]*)?>([^<]*)</#{prefix}:t>}).join
    end.join("\n")
  end

  def sheets(bytes, parts)
    strings = shared_strings(bytes, parts['xl/sharedStrings.xml'])
    parts.keys.grep(%r{\Axl/worksheets/sheet\d+\.xml\z}).map do |name|
      inflate(bytes, parts[name]).scan(%r{<row[^>]*>(.*?)</row>}m).map do |(row)|
        row.scan(%r{<c ([^>]*)>(?:<f>[^<]*</f>)?<v>([^<]*)</v></c>}).map do |attrs, value|
          attrs.include?('t="s"') ? strings[value.to_i] : value
        end.join("\t")
      end.join("\n")
    end.join("\n")
  end

  def shared_strings(bytes, part)
    return [] unless part

    inflate(bytes, part).scan(%r{<si>(.*?)</si>}m).map { |(si)| si.scan(%r{<t[^>]*>([^<]*)</t>}).join }
  end
end
