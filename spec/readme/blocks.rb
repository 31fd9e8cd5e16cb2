# frozen_string_literal: true

# The ```ruby blocks of the README and of docs/*.md, each with where it is and the
# name its marker gives it: an HTML comment on the line before the fence,
#
#   <!-- example: stores -->
#   ```ruby
#
# which names the block's setup in spec/readme/setups.rb. A block without a marker
# runs with no setup: the gem loaded, in an empty folder.
module ReadmeBlocks
  ROOT = File.expand_path('../..', __dir__)
  MARKER = /\A<!-- example: (?<name>[a-z0-9_-]+) -->\s*\z/
  FENCE = /\A```(?<language>\S*)/

  # One block: the file it is in (relative to the checkout), the line of its first
  # line of code, its code and its marker's name (nil without one).
  Block = Struct.new(:file, :line, :code, :name, keyword_init: true) do
    def where
      "#{file}:#{line}"
    end

    def label
      name || "unmarked block at #{where}"
    end
  end

  module_function

  def files
    [File.join(ROOT, 'README.md'), *Dir[File.join(ROOT, 'docs', '*.md')]]
  end

  def all
    files.flat_map { |path| in_file(path) }
  end

  # The ruby blocks of one Markdown file, in order.
  def in_file(path)
    relative = path.delete_prefix("#{ROOT}/")
    lines = File.readlines(path, chomp: true)
    fences(lines).filter_map do |open, close|
      next unless FENCE.match(lines[open])[:language] == 'ruby'

      name = open.positive? ? MARKER.match(lines[open - 1])&.[](:name) : nil
      Block.new(file: relative, line: open + 2, code: "#{lines[open + 1...close].join("\n")}\n", name:)
    end
  end

  # The index of each fenced block's opening and closing line: fences pair up in order.
  def fences(lines)
    lines.each_index.select { |index| lines[index].start_with?('```') }.each_slice(2).select { |pair| pair.size == 2 }
  end
end
