# frozen_string_literal: true

module RubyLLM
  # A file in a FileStore: its path, size, content type, digest and time of change.
  # Stores return them from list, [], find, write and delete.
  #
  #   file = chat.file_store.find("reports/q3.pdf")
  #   file.filename   # => "q3.pdf"
  #   file.human_size # => "2.1 MB"
  class StoredFile
    UNITS = %w[KB MB GB TB].freeze
    private_constant :UNITS

    # The path inside the store, like <tt>"reports/q3.pdf"</tt>.
    attr_reader :path
    # The size in bytes.
    attr_reader :byte_size
    # The content type, like <tt>"application/pdf"</tt>.
    attr_reader :content_type
    # When the file last changed, a Time, or nil when the store does not know.
    attr_reader :updated_at
    # What tells this version of the file from another of the same size and time,
    # where a program can set the time back or the clock counts whole seconds: a
    # String, or nil when the store has nothing more to say. Asked only of files
    # past Reads::DIGEST_LIMIT, whose versions are not their digests. The folder
    # store's is the file's ctime, inode and a digest of its first and last 64 KB;
    # the Active Storage store's, the checksum Active Storage keeps on the blob.
    #
    #   store["big.csv"].stamp # => "1764650000.123456789 803:1234 9f86d0..."
    attr_reader :stamp

    # Builds a file. A store that can tell the digest only by reading the file passes
    # a block that returns it; it runs once, when #digest is first asked for.
    #
    #   RubyLLM::StoredFile.new(path: "a.txt", byte_size: 3, content_type: "text/plain",
    #                           digest: Digest::SHA256.hexdigest("abc"))
    def initialize(path:, byte_size:, content_type:, digest: nil, updated_at: nil, stamp: nil, &digest_loader)
      @path = path
      @byte_size = byte_size
      @content_type = content_type
      @digest = digest
      @digest_loader = digest_loader
      @updated_at = updated_at
      @stamp = stamp
    end

    # The last part of the path.
    def filename
      File.basename(path)
    end

    # The SHA-256 of the content in hex, or nil when the store cannot tell.
    def digest
      return @digest unless @digest_loader

      loader = @digest_loader
      @digest_loader = nil
      @digest = loader.call
    end

    # The size for people: <tt>"812 bytes"</tt>, <tt>"1.5 KB"</tt>, <tt>"2.1 MB"</tt>.
    def human_size
      return "#{byte_size} #{byte_size == 1 ? 'byte' : 'bytes'}" if byte_size < 1024

      size = byte_size.to_f
      unit = UNITS.find do |name|
        size /= 1024
        size < 1024 || name == UNITS.last
      end
      "#{format('%.1f', size).delete_suffix('.0')} #{unit}"
    end

    def to_h # :nodoc:
      { path:, byte_size:, content_type:, digest:, updated_at: }
    end

    def ==(other) # :nodoc:
      other.is_a?(StoredFile) && [path, byte_size, content_type] == [other.path, other.byte_size, other.content_type] &&
        digest == other.digest
    end
    alias eql? ==

    def hash # :nodoc:
      [path, byte_size, content_type].hash
    end

    def inspect # :nodoc:
      "#<#{StoredFile.name} path: #{path.inspect}, byte_size: #{byte_size}, content_type: #{content_type.inspect}>"
    end
  end
end
