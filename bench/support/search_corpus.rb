# frozen_string_literal: true

require 'fileutils'

# The files bench/search.rb searches and reads, made once with plain Ruby from a
# fixed seed: folders x files text files of about 100 KB in <base>/corpus, and one
# large file of lines of about 100 bytes in <base>/big. A stamp file says which sizes
# the files were made for, so that a later run can reuse them.
#
# The lines are drawn from a pool of prose-like lines of random words. One pool line
# in COMMON_EVERY carries the word "common" (as common, Common or COMMON), and
# +markers+ lines of the corpus get a word "marker<k>", the only digits in it.
class SearchCorpus
  WORDS = 4000
  POOL_LINES = 20_000
  COMMON_EVERY = 20
  COMMON = %w[common Common COMMON].freeze
  LINE_BYTES = 100
  CHUNK_LINES = 10_000
  BIG_NAME = 'big.txt'

  attr_reader :base

  def initialize(base, folders:, files:, file_bytes:, big_bytes:, markers:)
    @base = base
    @folders = folders
    @files = files
    @file_bytes = file_bytes
    @big_bytes = big_bytes
    @markers = markers
  end

  # The folder of files to search.
  def corpus
    File.join(base, 'corpus')
  end

  # The folder that holds the large file alone.
  def big_folder
    File.join(base, 'big')
  end

  def big_path
    File.join(big_folder, BIG_NAME)
  end

  def file_count
    @folders * @files
  end

  def ready?
    File.exist?(stamp_path) && File.read(stamp_path) == stamp
  end

  def delete
    FileUtils.rm_rf(base)
  end

  # Megabytes on disk: [corpus, large file].
  def sizes_mb
    corpus_bytes = Dir.glob('**/*', base: corpus).sum { |path| File.size(File.join(corpus, path)) }
    [corpus_bytes / 1e6, File.size(big_path) / 1e6]
  end

  # Writes every file afresh, the stamp last.
  def generate
    delete
    random = Random.new(42)
    pool = line_pool(random)
    write_corpus(pool, random)
    write_big(pool, random)
    File.write(stamp_path, stamp)
  end

  private

  def stamp_path
    File.join(base, 'STAMP')
  end

  def stamp
    "v1 folders=#{@folders} files=#{@files} file_bytes=#{@file_bytes} big_bytes=#{@big_bytes} markers=#{@markers}\n"
  end

  def line_pool(random)
    letters = ('a'..'z').to_a
    words = Array.new(WORDS) { Array.new(random.rand(2..9)) { letters[random.rand(letters.size)] }.join }
    Array.new(POOL_LINES) do |index|
      line = random_words(words, random)
      line.insert(random.rand(line.size + 1), COMMON[index / COMMON_EVERY % COMMON.size]) if
        (index % COMMON_EVERY).zero?
      sentence(line, random)
    end
  end

  # Words for a line of 20 to 180 bytes, about 100 on average.
  def random_words(words, random)
    target = random.rand(20..180)
    line = []
    bytes = 0
    while bytes < target
      word = words[random.rand(words.size)]
      line << word
      bytes += word.size + 1
    end
    line
  end

  def sentence(words, random)
    words[0] = words[0].capitalize
    words[random.rand(words.size)] += ',' if words.size > 6
    "#{words.join(' ')}#{%w[. . . ? ! ;].sample(random:)}"
  end

  def write_corpus(pool, random)
    lines = @file_bytes / LINE_BYTES
    markers = Array.new(@markers) { |k| [random.rand(file_count), random.rand(lines), k] }.group_by(&:first)
    file_count.times do |index|
      path = File.join(corpus, format('d%<d>03d/f%<f>03d.txt', d: index / @files, f: index % @files))
      FileUtils.mkdir_p(File.dirname(path)) if (index % @files).zero?
      text = Array.new(lines) { pool[random.rand(POOL_LINES)] }
      markers.fetch(index, []).each { |_, line, k| text[line] = "#{text[line]} marker#{k}" }
      File.binwrite(path, "#{text.join("\n")}\n")
    end
  end

  def write_big(pool, random)
    FileUtils.mkdir_p(big_folder)
    written = 0
    File.open(big_path, 'wb') do |file|
      while written < @big_bytes
        written += file.write("#{Array.new(CHUNK_LINES) { pool[random.rand(POOL_LINES)] }.join("\n")}\n")
      end
    end
  end
end
