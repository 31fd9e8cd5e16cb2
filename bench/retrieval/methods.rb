# frozen_string_literal: true

require 'json'
require 'open3'
require 'shellwords'

# The Ruby-side methods of bench/retrieval.rb. Each returns
# { index_seconds:, query_seconds: [..], files: [[path, ..], ..] }, files best first.
module RetrievalMethods
  DEPTH = 10
  STOP = %w[a an and are as at be by can do does for from how i if in into is it its me my
            of on or so than that the their then there these this to use used using what when
            where which while who why will with without you your get one way should there
            python module].freeze
  PYTHON = File.expand_path('../../tmp/retrieval/venv/bin/python', __dir__)

  def self.words(question)
    question.downcase.scan(/[a-z_][a-z0-9_]*/).reject { |w| w.size < 2 || STOP.include?(w) }.uniq
  end

  def self.alternation(question) = words(question).map { |w| Regexp.escape(w) }.join('|')

  def self.timed
    start = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    value = yield
    [value, Process.clock_gettime(Process::CLOCK_MONOTONIC) - start]
  end

  def self.over(questions, index_seconds: 0.0)
    runs = questions.map { |q| timed { yield(q[:question]).first(DEPTH) } }
    { index_seconds:, query_seconds: runs.map(&:last), files: runs.map(&:first) }
  end

  # search_files as a model calls it: files in the order the tool lists their lines.
  def self.search_files(store, questions)
    tool = RubyLLM::FileStore::Tools::SearchFiles.new(store)
    over(questions) do |question|
      output = tool.call(pattern: alternation(question), ignore_case: true)
      output.to_s.lines.filter_map { |line| line[/\A(.+?):\d+[:-]/, 1] }.uniq
    end
  end

  # Files by how many of their lines match, as `rg -c -i` counts them.
  def self.ripgrep(texts_root, questions)
    over(questions) do |question|
      out, = Open3.capture2('rg', '-c', '-i', '-e', alternation(question), '.', chdir: texts_root)
      counts = out.lines.map { |line| line.chomp.split(/:(?=\d+\z)/) }
      counts.sort_by { |path, count| [-count.to_i, path] }.map { |path, _| path.delete_prefix('./') }
    end
  end

  # The first call builds whatever index the store keeps: timed apart, as its index time.
  def self.rank_passages(store, questions)
    _, index_seconds = timed { store.rank_passages('index', limit: 1) }
    over(questions, index_seconds:) do |question|
      store.rank_passages(question, limit: DEPTH * 5).map { |hit| hit[:path] }.uniq
    end
  end

  # The same with an embedder (FileStore::Embeddings) named in the configuration: the
  # first call builds the index and embeds every passage not embedded before (a
  # folder store keeps the vectors in its saved index, so a second run embeds only
  # the questions).
  def self.rank_passages_with(store, questions, embedder)
    config = RubyLLM.config.dup
    config.file_store_embeddings = embedder
    _, index_seconds = timed { store.rank_passages('index', limit: 1, config:) }
    over(questions, index_seconds:) do |question|
      store.rank_passages(question, limit: DEPTH * 5, config:).map { |hit| hit[:path] }.uniq
    end
  end

  # all-MiniLM-L6-v2 in a Python process of its own (embed_server.py, numpy), as an
  # embedder of the app's own would be: +name+ and +embed(texts)+.
  class MiniLM
    def initialize
      @io = IO.popen([PYTHON, File.join(__dir__, 'embed_server.py')], 'r+', chdir: __dir__)
    end

    def name = 'bench:all-MiniLM-L6-v2'

    def embed(texts)
      @io.puts(JSON.generate(texts))
      JSON.parse(@io.gets || raise('embed_server.py ended'))
    end

    def close = @io.close
  end

  # bm25s, the embeddings and their fusion, in one Python process on the same passages.
  def self.python(passages, questions, base)
    input = File.join(base, 'passages.json')
    File.write(input, JSON.generate(passages:, questions: questions.map { |q| q[:question] },
                                    cache: File.join(base, 'cache')))
    out, status = Open3.capture2(PYTHON, File.join(__dir__, 'baselines.py'), input)
    abort 'bench/retrieval/baselines.py failed: is bench/retrieval/setup run?' unless status.success?
    JSON.parse(out, symbolize_names: true).transform_keys(&:to_s)
  end
end
