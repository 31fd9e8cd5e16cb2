# frozen_string_literal: true

require 'fileutils'

# The trees of bench/small_files.rb: +size+ files of 1 to 3 KB of words in 250 x 20
# folders, one file in 500 holding a marker line; made once, kept for the next run.
module SmallFilesTree
  WORDS = %w[alpha beta gamma delta epsilon zeta theta lambda sigma omega common value return class def end
             parse buffer thread socket request handler index].freeze

  module_function

  # The tree of +size+ files under +base+, generated unless a complete one is there.
  def path(base, size)
    root = File.join(base, size.to_s)
    stamp = File.join(base, "#{size}.done")
    return root if File.exist?(stamp)

    FileUtils.rm_rf(root)
    $stdout.print("generating #{size} files... ")
    generate(root, size)
    File.write(stamp, "#{size} files\n")
    puts 'done'
    root
  end

  def generate(root, size)
    rng = Random.new(size)
    size.times do |i|
      dir = File.join(root, format('d%03d', i % 250), format('e%02d', (i / 250) % 20))
      FileUtils.mkdir_p(dir) if i < 5000
      lines = Array.new(20 + rng.rand(40)) { Array.new(8) { WORDS.sample(random: rng) }.join(' ') }
      lines[rng.rand(lines.size)] = "marker#{i}" if (i % 500).zero?
      File.write(File.join(dir, "f#{i}.txt"), "#{lines.join("\n")}\n")
    end
  end
end
