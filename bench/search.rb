# frozen_string_literal: true

# search_files and read_file against ripgrep, GNU grep, sed and plain Ruby, on the
# same files, in one table. Run by hand from the gem's folder after `rake compile`:
#
#   ruby bench/search.rb          # 5,000 files of ~100 KB (~500 MB), a ~1 GB file
#   ruby bench/search.rb --quick  # about a twentieth of each, as a smoke run
#   ruby bench/search.rb --keep   # keep the generated files in /tmp for the next run
#   ruby bench/search.rb --clean  # delete the generated files and stop
#
# The files are generated once under /tmp (reused while a stamp file matches) and
# deleted at the end unless --keep. Every contender runs once untimed to warm the
# page cache and check its count, then 3 times, each in a fresh process: a forked
# Ruby child (peak memory is its VmHWM, so it includes the Ruby parent it copies) or
# an external command under GNU time (peak memory is its maximum RSS). External
# commands write to a pipe that is read to the end; rg and grep stop at the first
# match when their output is /dev/null, so that would not measure them.
#
# Written on a machine with 2 cores: search_files and ripgrep both search with a
# thread per core, GNU grep, sed and plain Ruby with one.

$LOAD_PATH.unshift(File.expand_path('../lib', __dir__))
# ruby_llm, which the gem requires, as the specs find it (RUBY_LLM_PATH, else ../shared/gems).
require_relative '../spec/ruby_llm_path'
RubyLLMPath.load!
require 'ruby_llm/file_store'
require 'etc'
require 'tmpdir'
require_relative 'support/plain_ruby_search'
require_relative 'support/search_contenders'
require_relative 'support/search_corpus'
require_relative 'support/search_measure'
require_relative 'support/search_report'

class SearchBench
  RUNS = 3
  LIMIT = 2000
  SEARCHES = [
    { workload: 'search rare /marker[0-9]+/', pattern: 'marker[0-9]+', ignore_case: false },
    { workload: 'search common /common/i', pattern: 'common', ignore_case: true }
  ].freeze
  BASE = File.join(Dir.tmpdir, 'ruby_llm_file_store_search_bench')

  def initialize(argv)
    @quick = argv.include?('--quick')
    @keep = argv.include?('--keep')
    @clean = argv.include?('--clean')
    @corpus = SearchCorpus.new(@quick ? "#{BASE}_quick" : BASE, **sizes)
    @read_line = @quick ? 50_000 : 1_000_000
    @report = SearchReport.new
  end

  def run
    return clean if @clean

    prepare
    SEARCHES.each { |search| search_workload(**search) }
    read_workload
    puts
    @report.table
    puts
    @report.goals(SEARCHES.map { |search| search[:workload] }, read_label,
                  rg: SearchContenders::RG, ruby: SearchContenders::RUBY_SEARCH,
                  sed: SearchContenders::SED, ours_read: SearchContenders::OURS_READ)
  ensure
    finish
  end

  private

  def sizes
    return { folders: 25, files: 10, file_bytes: 100_000, big_bytes: 50_000_000, markers: 300 } if @quick

    { folders: 100, files: 50, file_bytes: 100_000, big_bytes: 1_000_000_000, markers: 300 }
  end

  def clean
    [BASE, "#{BASE}_quick"].each { |base| FileUtils.rm_rf(base) }
    puts "deleted #{BASE} and #{BASE}_quick"
  end

  def finish
    return if @clean || @keep

    @corpus.delete
    puts "deleted #{@corpus.base} (--keep keeps it)"
  end

  def prepare
    header
    if @corpus.ready?
      puts "files: reusing #{@corpus.base}"
    else
      generated = SearchMeasure.in_child { @corpus.generate }
      puts format('files: generated in %<s>.1f s (not in the table)', s: generated.seconds)
    end
    corpus_mb, big_mb = @corpus.sizes_mb
    puts format('files: %<files>d files, %<corpus>.0f MB in %<dir>s; %<big>.0f MB in %<path>s',
                files: @corpus.file_count, corpus: corpus_mb, dir: @corpus.corpus, big: big_mb, path: @corpus.big_path)
    puts format('a forked Ruby child starts at %.1f MB (part of every Ruby peak)', SearchMeasure.in_child { 0 }.peak_mb)
  end

  def header
    puts "ruby #{RUBY_VERSION}, #{Etc.nprocessors} cores, #{`rg --version`.lines.first.strip}, " \
         "#{`grep --version`.lines.first.strip}, #{`sed --version`.lines.first.strip}, LANG=#{ENV.fetch('LANG', '')}"
    puts "best of #{RUNS} runs each after one untimed warm-up; every run in a process of its own"
  end

  def search_workload(workload:, pattern:, ignore_case:)
    root = @corpus.corpus
    counts = measure(workload, SearchContenders.searches(root, pattern, ignore_case))
    check_counts(workload, counts.merge('rg -c (summed)' => SearchContenders.rg_count(root, pattern, ignore_case)))
  end

  def read_workload
    check_lines(measure(read_label, SearchContenders.reads(@corpus.big_path, @read_line, LIMIT)))
  end

  def read_label
    "read line #{number(@read_line)}, limit #{LIMIT}"
  end

  # Warms each contender up, then times it; adds the rows and returns what each
  # contender's count function made of its warm-up.
  def measure(workload, contenders)
    samples = {}
    counts = {}
    contenders.each do |contender|
      counts[contender.tool] = contender.result_of.call(contender.run.call.value)
      samples[contender.tool] = SearchMeasure.best_of(RUNS) { contender.run.call }
      $stdout.print('.')
      $stdout.flush
    end
    @report.add(workload, samples)
    counts
  end

  def check_counts(workload, counts)
    agree = counts.values.uniq.size == 1
    puts "\n#{workload}: matching lines #{counts.map { |tool, count| "#{tool} #{number(count)}" }.join(', ')}: " \
         "#{agree ? 'agree' : 'DISAGREE'}"
  end

  # read_file stops at its output ceiling (its trailer says where to go on), so it
  # may return fewer lines than asked: they must be the first of the others'.
  def check_lines(lines)
    full = lines.values.max_by(&:size)
    agree = full.size == LIMIT && lines.values.all? { |found| found == full.first(found.size) }
    puts "\n#{read_label}: #{lines.map { |tool, found| "#{tool} #{found.size} lines" }.join(', ')}: " \
         "#{agree ? 'same text (fewer lines where a tool stopped at its output ceiling)' : 'DIFFERENT TEXT'}"
  end

  def number(value)
    value.to_s.reverse.scan(/\d{1,3}/).join(',').reverse
  end
end

SearchBench.new(ARGV).run
