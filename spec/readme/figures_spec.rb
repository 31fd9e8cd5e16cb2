# frozen_string_literal: true

require_relative 'blocks'

# The README states figures in brief; docs/ holds each in full. Every figure with a
# unit the README states (a paragraph, a list item or a table) must appear, as
# written, in a docs/ page that the same paragraph links to (a table counts the links
# of the paragraph before it), so a figure changed on one side only fails here. Every
# docs page is linked from the README, and no table row of the README or of docs/ is
# longer than ROW_LIMIT characters.
module ReadmeFigures
  UNITS = %w[ms s min seconds minutes KB MB GB MiB GiB bytes characters character tokens files
             lines steps entries pages page words times processes].freeze
  FIGURE = /(?<![\w.,^])(?:\d+ min \d+ s\b|(?:\d+\^\d+|\d[\d,]*(?:\.\d+)?)(?:(?:[ -](?:#{UNITS.join('|')}))+\b|%|x\b))/
  LINK = %r{\]\((docs/[a-z_]+\.md)(?:#[a-z0-9-]+)?\)}
  ROW_LIMIT = 300

  module_function

  # The README's prose, outside its code blocks, as blocks of lines between blank lines;
  # each item of a list is a block of its own.
  def paragraphs(text)
    prose(text).chunk_while { |_, line| line.strip != '' && !line.start_with?('- ') }
               .map { |lines| lines.join.strip }.reject(&:empty?)
  end

  # The lines of +text+ outside its fenced code blocks, each block left as a blank line.
  def prose(text)
    inside = false
    text.lines.map do |line|
      fence = line.start_with?('```')
      inside = !inside if fence
      fence || inside ? "\n" : line
    end
  end

  # Each paragraph with the figures it states and the docs pages it links to.
  def claims(text)
    links = []
    paragraphs(text).map do |paragraph|
      own = paragraph.scan(LINK).flatten.uniq
      links = own unless paragraph.start_with?('|') && own.empty?
      { paragraph:, figures: paragraph.scan(FIGURE).uniq, links: }
    end
  end

  def flat(text)
    text.gsub(/\s+/, ' ')
  end

  # A heading's anchor as GitHub makes it: lower case, punctuation but - and _ gone,
  # spaces as -.
  def anchor(heading)
    heading.downcase.gsub(/[^\p{Word}\- ]/, '').tr(' ', '-')
  end

  # The relative links of the Markdown file at +path+ that lead nowhere: a missing
  # file, or an anchor no heading of the file it names has.
  def broken_links(path)
    links = File.read(path).scan(/\]\((?!https?:)([^)#\s]*)(?:#([^)\s]+))?\)/)
    broken = links.reject do |target, fragment|
      leads?(target.empty? ? path : File.expand_path(target, File.dirname(path)), fragment)
    end
    broken.map { |target, fragment| [target, fragment].compact.join('#') }
  end

  # Whether +file+ exists and, given a +fragment+, has a heading of that anchor.
  def leads?(file, fragment)
    return false unless File.exist?(file)
    return true if fragment.nil? || File.directory?(file)

    File.read(file).scan(/^#+ (.+)$/).flatten.map { |heading| anchor(heading) }.include?(fragment)
  end

  def table_rows(path)
    File.readlines(path, chomp: true).each_with_index.select { |line, _| line.start_with?('|') }
  end
end

RSpec.describe 'the README' do
  readme = File.read(File.join(ReadmeBlocks::ROOT, 'README.md'))
  docs = Dir[File.join(ReadmeBlocks::ROOT, 'docs', '*.md')].to_h do |path|
    ["docs/#{File.basename(path)}", ReadmeFigures.flat(File.read(path))]
  end

  it 'is under 300 lines' do
    expect(readme.lines.size).to be < 300
  end

  it 'states each figure as a docs page it links to states it' do
    missing = ReadmeFigures.claims(readme).flat_map do |claim|
      claim[:figures].filter_map do |figure|
        pages = claim[:links].select { |page| docs.fetch(page, '').include?(figure) }
        next if pages.any?

        "#{figure.inspect} in \"#{ReadmeFigures.flat(claim[:paragraph])[0, 70]}...\", " \
          "linked pages: #{claim[:links].inspect}"
      end
    end
    expect(missing).to eq([])
  end

  it 'finds the figures it checks' do
    figures = ReadmeFigures.claims(readme).flat_map { |claim| claim[:figures] }
    expect(figures).to include('100,000 characters', '0.097 s', '76.0%', '2^36 pages', '0.47x')
  end

  it 'links every docs page' do
    expect(docs.keys - readme.scan(ReadmeFigures::LINK).flatten).to eq([])
  end

  it 'has links, as docs/ and CONTRIBUTING.md have, that lead to a file and a heading of it' do
    files = [*ReadmeBlocks.files, File.join(ReadmeBlocks::ROOT, 'CONTRIBUTING.md')]
    broken = files.to_h { |path| [File.basename(path), ReadmeFigures.broken_links(path)] }.reject { |_, links| links.empty? }
    expect(broken).to eq({})
  end

  it "keeps every table row, its own and the docs', within #{ReadmeFigures::ROW_LIMIT} characters" do
    long = ReadmeBlocks.files.flat_map do |path|
      ReadmeFigures.table_rows(path).filter_map do |line, index|
        "#{path.delete_prefix("#{ReadmeBlocks::ROOT}/")}:#{index + 1} (#{line.size})" if
          line.size > ReadmeFigures::ROW_LIMIT
      end
    end
    expect(long).to eq([])
  end
end
