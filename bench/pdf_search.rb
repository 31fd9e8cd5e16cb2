# frozen_string_literal: true

# search_files over a folder of 500 PDFs, with the built-in converters as they are on
# by default: the first search converts every PDF (in convert worker processes), the
# second in the same process searches the texts the core cached. Run by hand from the
# gem's folder after `rake compile`:
#
#   ruby bench/pdf_search.rb          # 500 PDFs of 8 pages each
#   ruby bench/pdf_search.rb --quick  # 50 of them, as a smoke run
#
# With --in-process LIB it measures, in the same run and interleaved, a build whose
# converters ran in the app's own process, as a baseline, and prints the ratios: LIB is
# the lib/ folder of a checkout of the last such commit (a820bce), built:
#
#   git worktree add /tmp/in-process a820bce && cd /tmp/in-process && \
#     cargo build --release -p ruby_llm_file_store && \
#     cp target/release/libfile_store_native.so lib/ruby_llm/file_store/file_store_native.so
#   ruby bench/pdf_search.rb --in-process /tmp/in-process/lib
#
# The PDFs are written once under /tmp (reused while their count matches) by the
# same writer the specs' contract PDFs come from: A4 pages of Helvetica text,
# deflated content streams. Each run is a Ruby process of its own with a cold cache;
# the first search, then the second, each timed; 3 runs of each build, best shown.

require 'fileutils'
require 'json'
require 'open3'
require 'rbconfig'
require 'tmpdir'
require_relative '../spec/ruby_llm_path'
require_relative '../spec/support/text_pdf'

class PDFSearchBench
  RUNS = 3
  PAGES = 8
  CHILD = File.expand_path('support/pdf_search_child.rb', __dir__)
  LIB = File.expand_path('../lib', __dir__)

  def initialize(argv)
    @count = argv.include?('--quick') ? 50 : 500
    @baseline = argv[argv.index('--in-process') + 1] if argv.include?('--in-process')
    @root = File.join(Dir.tmpdir, "ruby_llm_file_store_pdf_bench_#{@count}")
  end

  def run
    prepare
    builds = { 'worker pool' => LIB }
    builds['in-process'] = @baseline if @baseline
    samples = Hash.new { |all, name| all[name] = [] }
    RUNS.times { builds.each { |name, lib| samples[name] << measure(lib) } }
    answers = samples.values.flatten.map { |sample| sample['answer'] }.uniq
    raise "the builds answered differently: #{answers}" unless answers.size == 1

    report(samples.transform_values { |runs| best(runs) }, answers.first)
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

  def measure(lib)
    output, status = Open3.capture2e(RbConfig.ruby, *RubyLLMPath.ruby_options, '-I', lib, CHILD, @root)
    raise "#{lib}: #{output}" unless status.success?

    JSON.parse(output.lines.last)
  end

  def best(runs)
    { first: runs.map { |run| run['first'] }.min, second: runs.map { |run| run['second'] }.min,
      peak: runs.map { |run| run['peak_mb'] }.max }
  end

  def report(best, answer)
    bytes = Dir.glob(File.join(@root, '*.pdf')).sum { |path| File.size(path) }
    puts "#{@count} PDFs of #{PAGES} pages (#{(bytes / 1e6).round(1)} MB) in #{@root}, best of #{RUNS} runs each"
    puts "matching lines: #{answer.lines.count { |line| line.include?(':') && !line.start_with?('[') }}"
    best.each do |name, times|
      puts format('%<name>-12s first search (converts every PDF): %<first>.3f s; second (cached): %<second>.3f s; ' \
                  'app peak %<peak>d MB', name:, **times)
    end
    baseline = best['in-process'] or return
    pool = best['worker pool']
    puts format('worker pool / in-process: first search %<first>.2fx, second %<second>.2fx',
                first: pool[:first] / baseline[:first], second: pool[:second] / baseline[:second])
  end
end

PDFSearchBench.new(ARGV).run
