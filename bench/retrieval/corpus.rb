# frozen_string_literal: true

require 'fileutils'

# The Python documentation from Debian's python3.11-doc, copied once into a folder
# under tmp/ that a folder store opens, with its texts as the store converts them
# (for ripgrep, and cut into the passages every method sees).
class RetrievalCorpus
  SOURCE = '/usr/share/doc/python3.11/html'
  FOLDERS = %w[library tutorial howto reference faq].freeze
  PASSAGE_WORDS = 200

  attr_reader :root, :texts_root

  def initialize(base)
    @root = File.join(base, 'corpus')
    @texts_root = File.join(base, 'texts')
  end

  def prepare
    abort "#{SOURCE} is missing: run bench/retrieval/setup" unless Dir.exist?(SOURCE)
    copy unless Dir.exist?(@root)
    store
  end

  def store
    @store ||= RubyLLM.file_store.directory(@root)
  end

  def paths
    @paths ||= store.list.map(&:path).sort
  end

  def text(path)
    (@texts ||= {})[path] ||= store.text(path)
  end

  # Converted texts as plain files, for ripgrep.
  def write_texts
    return if Dir.exist?(@texts_root)

    paths.each do |path|
      target = File.join(@texts_root, path)
      FileUtils.mkdir_p(File.dirname(target))
      File.write(target, text(path))
    end
  end

  # Each file's text in passages of PASSAGE_WORDS words.
  def passages
    @passages ||= paths.flat_map do |path|
      text(path).split.each_slice(PASSAGE_WORDS).map { |words| { path:, text: words.join(' ') } }
    end
  end

  private

  def copy
    FOLDERS.each do |folder|
      FileUtils.mkdir_p(File.join(@root, folder))
      Dir.glob(File.join(SOURCE, folder, '*.html')).each { |file| FileUtils.cp(file, File.join(@root, folder)) }
    end
  end
end
