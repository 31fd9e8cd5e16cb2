# frozen_string_literal: true

# What bench/search.rb runs: for each workload, search_files or read_file (ours)
# first, then the tools it is compared with. Each contender has a run, which gives a
# SearchMeasure::Sample, and a result_of, which turns the sample's value into what the
# contenders must agree on: a count of matching lines, or the lines read.
module SearchContenders
  Contender = Struct.new(:tool, :run, :result_of)

  OURS_SEARCH = 'search_files (ours)'
  OURS_READ = 'read_file (ours)'
  RG = 'rg -n'
  GREP = 'grep -rnE'
  RUBY_SEARCH = 'plain Ruby (glob+foreach+match?)'
  SED = "sed -n 'a,bp;bq' (quits)"
  SED_TO_END = "sed -n 'a,bp' (reads to the end)"
  RUBY_READ = 'plain Ruby (foreach.with_index)'

  module_function

  def searches(root, pattern, ignore_case)
    flags = ignore_case ? ['-i'] : []
    regexp = Regexp.new(pattern, ignore_case ? Regexp::IGNORECASE : nil)
    [
      Contender.new(OURS_SEARCH, -> { SearchMeasure.in_child { ours_search(root, pattern, ignore_case) } },
                    method(:ours_total)),
      Contender.new(RG, -> { SearchMeasure.command(['rg', '-n', *flags, pattern, root]) }, method(:output_lines)),
      Contender.new(GREP, -> { SearchMeasure.command(['grep', '-rnE', *flags, pattern, root]) },
                    method(:output_lines)),
      Contender.new(RUBY_SEARCH, -> { SearchMeasure.in_child { PlainRubySearch.grep(root, regexp) } },
                    ->(value) { value[2] })
    ]
  end

  def reads(path, offset, limit)
    last = offset + limit - 1
    [
      Contender.new(OURS_READ, -> { SearchMeasure.in_child { ours_read(path, offset, limit) } }, method(:numbered)),
      Contender.new(SED, -> { SearchMeasure.command(['sed', '-n', "#{offset},#{last}p;#{last}q", path], keep: true) },
                    method(:output)),
      Contender.new(SED_TO_END, -> { SearchMeasure.command(['sed', '-n', "#{offset},#{last}p", path], keep: true) },
                    method(:output)),
      Contender.new(RUBY_READ, -> { SearchMeasure.in_child { PlainRubySearch.read_lines(path, offset, limit) } },
                    method(:numbered))
    ]
  end

  # The tool call as the model makes it, on a store opened in the child.
  def ours_search(root, pattern, ignore_case)
    store = RubyLLM.file_store.directory(root)
    RubyLLM::FileStore::Tools::SearchFiles.new(store).call(pattern:, ignore_case:)
  end

  def ours_read(path, offset, limit)
    store = RubyLLM.file_store.directory(File.dirname(path))
    RubyLLM::FileStore::Tools::ReadFile.new(store).call(path: File.basename(path), offset:, limit:)
  end

  # The total from search_files' summary line, or its lines when all are shown.
  def ours_total(text)
    summary = text[/Showing \d+ of (\d+) matching lines/, 1]
    summary ? summary.to_i : text.lines.count { |line| line.match?(/\A[^\n]*?:\d+: /) }
  end

  def output_lines(value)
    value[:lines]
  end

  def output(value)
    value[:output].lines(chomp: true)
  end

  # The text of numbered lines, without numbers or trailer.
  def numbered(text)
    text.lines(chomp: true).filter_map { |line| line.sub(/\A *\d+\t/, '') if line.match?(/\A *\d+\t/) }
  end

  # The total of `rg -c`, for one more check of the counts.
  def rg_count(root, pattern, ignore_case)
    IO.popen(['rg', '-c', *(['-i'] if ignore_case), pattern, root], &:readlines).sum do |line|
      line[/(\d+)\s*\z/, 1].to_i
    end
  end
end
