# frozen_string_literal: true

# The native Directory store against RubyDirectoryStore, a plain Ruby folder store
# (bench/support/ruby_directory_store.rb), on the same files. Run by hand from the
# gem's folder after `rake compile`:
#
#   ruby bench/store.rb          # 50,000 files, 10,000 look-ups, 2,000 writes, 200 MB
#   ruby bench/store.rb --quick  # a tenth of each, as a smoke run
#
# Every (store, workload) pair runs in a forked child of its own; times are the best
# of 3 runs and peak memory is the child's VmHWM.

$LOAD_PATH.unshift(File.expand_path('../lib', __dir__))
# ruby_llm, which the gem requires, as the specs find it (RUBY_LLM_PATH, else ../shared/gems).
require_relative '../spec/ruby_llm_path'
RubyLLMPath.load!
require 'ruby_llm/file_store'
require 'digest'
require 'etc'
require 'tmpdir'
require_relative 'support/child'
require_relative 'support/fixtures'
require_relative 'support/report'
require_relative 'support/ruby_directory_store'

class StoreBench
  STORES = {
    native: ->(path) { RubyLLM.file_store.directory(path) },
    ruby: ->(path) { RubyDirectoryStore.new(path) }
  }.freeze
  RUNS = 3

  def initialize(quick:)
    @scale = quick ? 10 : 1
    @rows = []
    @agreed = []
  end

  def run
    Dir.mktmpdir('file_store_bench') do |tmp|
      @tmp = tmp
      header
      list_and_find
      write_and_read
      large_read
      Report.table(@rows)
      puts "Both stores gave the same answers: #{@agreed.join(', ')}."
      Report.goals(@rows, @rows.first)
    end
  end

  private

  def header
    puts "ruby_llm-file_store #{RubyLLM::FileStore::VERSION}: native Directory vs pure-Ruby RubyDirectoryStore " \
         "(ruby #{RUBY_VERSION}, #{Etc.nprocessors} CPUs#{', --quick' if @scale > 1})"
    puts 'Both fsync each written file before renaming it into place; neither syncs the folder after the rename.'
    puts "Best of #{RUNS} runs; peak = VmHWM of the forked child (an idle child: " \
         "#{format('%.1f', Child.run { {} }[:peak_mb])} MB)."
  end

  def list_and_find
    root = File.join(@tmp, 'tree')
    paths = Fixtures.tree(root, folders: 50, subfolders: 10, files: 100 / @scale)
    measure("list #{Report.number(paths.size)} files") do |open|
      store = open.call(root)
      timed { store.list }
    end
    lookups = Fixtures.lookups(paths, 10_000 / @scale)
    measure("find #{Report.number(lookups.size)} (10% missing)") do |open|
      store = open.call(root)
      timed { lookups.map { |path| store[path] }.compact }
    end
  end

  def write_and_read
    files = Fixtures.small_files(2_000 / @scale)
    expected = [files.sum { |_, content| content.bytesize }, Digest::SHA256.hexdigest(files.map(&:last).join)]
    measure("write #{Report.number(files.size)} x 1 KB", digest: true) do |open, name|
      stores = Array.new(RUNS) { |run| open.call(File.join(@tmp, "#{name}-write-#{run}")) }
      timed do
        store = stores.shift
        files.map { |path, content| store.write(path, content) }
      end
    end
    measure("read #{Report.number(files.size)} x 1 KB", expect: expected) do |open, name|
      store = open.call(File.join(@tmp, "#{name}-write-0"))
      timed { files.map { |path, _| store.read(path) } }
    end
  end

  def large_read
    megabytes = 200 / @scale
    expected = [megabytes * 1024 * 1024, Fixtures.large_file(File.join(@tmp, 'large.bin'), megabytes)]
    measure("read 1 x #{megabytes} MB", expect: expected) do |open|
      store = open.call(@tmp)
      timed { [store.read('large.bin')] }
    end
  end

  # Runs the block once per store, each in a child, checks that both stores gave the
  # same answer (and +expect+, when given) and adds a row.
  def measure(label, digest: false, expect: nil, &block)
    results = STORES.to_h do |name, open|
      [name, Child.run { summarize(*block.call(open, name), digest:) }]
    end
    agree(label, results.values.map { |result| result[:check] }, expect)
    native, ruby = results.values_at(:native, :ruby)
    @rows << Row.new(label, native[:seconds], ruby[:seconds], native[:peak_mb], ruby[:peak_mb])
  end

  def agree(label, checks, expect)
    unless checks.uniq.size == 1 && (expect.nil? || checks.first == expect)
      abort "#{label}: the stores disagree: native #{checks.first.inspect}, ruby #{checks.last.inspect}" \
            "#{", expected #{expect.inspect}" if expect}"
    end
    @agreed << "#{label.split.first} #{Report.number(checks.first.first)}#{' B' if label.start_with?('read')}"
  end

  # The best time of RUNS runs of the block, the last run's value, and the peak
  # memory right after (before the answer is checked).
  def timed(&)
    seconds, value = Child.best_of(RUNS, &)
    [seconds, value, Child.peak_mb]
  end

  def summarize(seconds, value, peak_mb, digest:)
    { seconds:, peak_mb:, check: check(value, digest:) }
  end

  # What both stores must agree on: for files, their paths, sizes, types and times
  # (or digests, for fresh writes); for contents, their sizes and SHA-256.
  def check(values, digest:)
    if values.first.is_a?(String)
      sha = values.each_with_object(Digest::SHA256.new) { |content, sum| sum << content }
      return [values.sum(&:bytesize), sha.hexdigest]
    end

    lines = values.map do |file|
      [file.path, file.byte_size, file.content_type, digest ? file.digest : file.updated_at.to_r].join("\t")
    end
    [values.size, Digest::SHA256.hexdigest(lines.join("\n"))]
  end
end

StoreBench.new(quick: ARGV.include?('--quick')).run
