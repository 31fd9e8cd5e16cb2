# frozen_string_literal: true

# search_files and read_file as a pure-Ruby gem would write them, for comparison:
# Dir.glob, File.foreach and Regexp#match?, with the same output format and the same
# cap of shown matches.
module PlainRubySearch
  MAX_MATCHES = 200
  SNIFF_BYTES = 8192

  module_function

  # Greps every text file below +root+ in path order, as path:line: text. Returns
  # [text, shown, total, files_matched], every matching line counted.
  def grep(root, regexp)
    shown = []
    total = 0
    files = 0
    Dir.glob('**/*', base: root).sort.each do |path|
      full = File.join(root, path)
      next unless File.file?(full) && text?(full)

      found = grep_file(full, path, regexp, shown)
      total += found
      files += 1 if found.positive?
    end
    [shown.join("\n"), shown.size, total, files]
  end

  # Adds the matching lines of one file to +shown+ while there is room, and returns
  # how many lines matched.
  def grep_file(full, path, regexp, shown)
    found = 0
    number = 0
    File.foreach(full) do |line|
      number += 1
      next unless regexp.match?(line)

      found += 1
      shown << "#{path}:#{number}: #{line.chomp}" if shown.size < MAX_MATCHES
    end
    found
  end

  # A file is text unless its first 8 KB hold a NUL byte, as search_files decides.
  def text?(full)
    head = File.open(full, 'rb') { |file| file.read(SNIFF_BYTES) }
    head.nil? || !head.include?("\0")
  end

  # Lines +offset+ (1-based) to +offset+ + +limit+ - 1 of the file at +path+,
  # numbered like read_file, read by skipping lines with File.foreach.with_index.
  def read_lines(path, offset, limit)
    text = +''
    File.foreach(path).with_index(1) do |line, number|
      next if number < offset
      break if number >= offset + limit

      text << format("%<number>6d\t%<line>s", number:, line:)
    end
    text
  end
end
