# frozen_string_literal: true

# search_files over a folder of 500 PDFs, with the built-in converters as they
# are on by default: the first search converts every PDF, the second in the same
# process searches the texts the core cached. Run by hand from the gem's folder
# after `rake compile`:
#
#   ruby bench/pdf_search.rb          # 500 PDFs of 8 pages each
#   ruby bench/pdf_search.rb --quick  # 50 of them, as a smoke run
#
# The PDFs are written once under /tmp (reused while their count matches) by the
# same writer the specs' contract PDFs come from: A4 pages of Helvetica text,
# deflated content streams. Each run is a forked child with a cold cache; the
# first search, then the second, each timed, 3 runs, best shown.

$LOAD_PATH.unshift(File.expand_path('../lib', __dir__))
require 'ruby_llm/file_store'
require 'fileutils'
require 'tmpdir'
require_relative '../spec/support/text_pdf'
require_relative 'support/search_measure'

class PDFSearchBench
  RUNS = 3
  PAGES = 8

  def initialize(argv)
    @count = argv.include?('--quick') ? 50 : 500
    @root = File.join(Dir.tmpdir, "ruby_llm_file_store_pdf_bench_#{@count}")
  end

  def run
    prepare
    samples = Array.new(RUNS) { SearchMeasure.in_child { searches } }
    first = samples.map { |sample| sample.value[:first] }.min
    second = samples.map { |sample| sample.value[:second] }.min
    answer = samples.first.value[:answer]
    report(first, second, answer, samples.map(&:peak_mb).max)
  end

  private

  def prepare
    return if Dir.glob(File.join(@root, '*.pdf')).size == @count

    FileUtils.rm_rf(@root)
    FileUtils.mkdir_p(@root)
    @count.times { |n| File.binwrite(File.join(@root, format('contract-%03d.pdf', n)), pdf(n)) }
  end

  # A contract of PAGES pages; one in fifty has the clause searched for.
  def pdf(number)
    lines = (1..(PAGES * TextPDF::LINES_PER_PAGE)).map do |line|
      text = "Clause #{number}.#{line}: the parties agree to the terms set out in schedule #{line % 17} of it."
      [:regular, (line == 200 && (number % 50).zero? ? "#{text} Termination for cause is immediate." : text)]
    end
    TextPDF.build(lines.each_slice(TextPDF::LINES_PER_PAGE).to_a)
  end

  def searches
    store = RubyLLM.file_store.directory(@root)
    tool = RubyLLM::FileStore::Tools::SearchFiles.new(store)
    first, answer = timed { tool.call(pattern: 'termination for cause', ignore_case: true) }
    second, again = timed { tool.call(pattern: 'termination for cause', ignore_case: true) }
    raise 'the second search answered differently' unless again == answer

    { first:, second:, answer: }
  end

  def timed
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    value = yield
    [Process.clock_gettime(Process::CLOCK_MONOTONIC) - started, value]
  end

  def report(first, second, answer, peak)
    bytes = Dir.glob(File.join(@root, '*.pdf')).sum { |path| File.size(path) }
    puts "#{@count} PDFs of #{PAGES} pages (#{(bytes / 1e6).round(1)} MB) in #{@root}"
    puts "matching lines: #{answer.lines.count { |line| line.include?(':') && !line.start_with?('[') }}"
    puts format('first search (converts every PDF): %<first>.3f s', first:)
    puts format('second search (cached texts):      %<second>.3f s, %<times>.0fx faster', second:,
                                                                                          times: first / second)
    puts "peak memory: #{peak.round} MB"
  end
end

PDFSearchBench.new(ARGV).run
