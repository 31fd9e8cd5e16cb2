# frozen_string_literal: true

require 'zlib'

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
end
