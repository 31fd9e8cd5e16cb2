# frozen_string_literal: true

# glob_files's matching in Ruby (its {a,b} expansion, then File.fnmatch per path)
# against the globset crate (bench/support/glob_match.rs, built here) on the same paths
# and patterns, in one table, with the ratio of globset's time to Ruby's. Run by hand
# from the gem's folder after `rake compile`:
#
#   ruby bench/glob.rb            # 20,000 paths
#   ruby bench/glob.rb 100000     # as many paths as given
#
# Both sides match paths already in memory. globset's figure is Rust's alone;
# through the binding each path would also cross into Rust and each match back. The
# last columns are the whole glob_files call on a folder store holding those files
# (its listing, the matching, the lines of the first 1,000 matches) and the share of
# it the matching is.

$LOAD_PATH.unshift(File.expand_path('../lib', __dir__))
# ruby_llm, which the gem requires, as the specs find it (RUBY_LLM_PATH, else ../shared/gems).
require_relative '../spec/ruby_llm_path'
RubyLLMPath.load!
require 'ruby_llm/file_store'
require 'tmpdir'
require 'open3'
require 'fileutils'
require_relative 'support/rust_bench'

class GlobBench
  PATTERNS = ['*.md', '**/*.md', 'reports/2024-*.{csv,xlsx}', '{notes,reports}/**', 'notes/old/20[0-2][0-9].md',
              '**/{plan,2023}.md', 'projects/*/src/**/*.{rb,rs}'].freeze
  FOLDERS = %w[notes notes/old reports projects/alpha/src projects/beta/src/lib projects/gamma/docs].freeze
  EXTENSIONS = %w[md csv xlsx rb rs txt].freeze
  ROW = '%<pattern>-28s %<matches>7s %<ruby>10s %<rust>14s %<ratio>8s %<call>12s %<share>8s'

  def initialize(count)
    @paths = Array.new(count) { |n| path(n) }.push('README.md', 'notes/plan.md').sort
  end

  def run
    ruby = PATTERNS.to_h { |pattern| [pattern, ruby_matching(pattern)] }
    rust = globset
    calls = whole_calls
    puts "#{@paths.size} paths, best of 5 each; globset's ratio = its time / Ruby's"
    puts format(ROW, pattern: 'pattern', matches: 'matches', ruby: 'Ruby', rust: 'globset (Rust)', ratio: 'ratio',
                     call: 'whole call', share: 'matching')
    PATTERNS.each { |pattern| row(pattern, ruby.fetch(pattern), rust.fetch(pattern), calls.fetch(pattern)) }
  end

  private

  def path(number)
    name = (number % 50).zero? ? %w[plan 2023 2024-q1][number % 3] : "file#{number}"
    "#{FOLDERS[number % FOLDERS.size]}/#{name}.#{EXTENSIONS[number % EXTENSIONS.size]}"
  end

  def best
    Array.new(5) do
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      found = yield
      [Process.clock_gettime(Process::CLOCK_MONOTONIC) - started, found]
    end.min_by(&:first)
  end

  def ruby_matching(pattern)
    files = @paths.map { |path| RubyLLM::StoredFile.new(path:, byte_size: 0, content_type: 'text/plain') }
    tool = RubyLLM::FileStore::Tools::GlobFiles.new(RubyLLM.file_store.memory)
    globs = tool.send(:alternatives, pattern)
    best { tool.send(:matching, files, globs, pattern).size }
  end

  def globset
    program = RustBench.build('glob_match', 'glob_match.rs', ['globset = "0.4"'])
    Dir.mktmpdir do |dir|
      File.write(list = File.join(dir, 'paths'), @paths.join("\n"))
      output, status = Open3.capture2(program, list, *PATTERNS)
      abort 'glob_bench failed' unless status.success?
      output.lines.to_h do |line|
        pattern, found, seconds = line.chomp.split("\t")
        [pattern, [Float(seconds), Integer(found)]]
      end
    end
  end

  def whole_calls
    Dir.mktmpdir do |dir|
      @paths.each do |path|
        FileUtils.mkdir_p(File.join(dir, File.dirname(path)))
        File.write(File.join(dir, path), '')
      end
      tool = RubyLLM::FileStore::Tools::GlobFiles.new(RubyLLM.file_store.directory(dir))
      PATTERNS.to_h { |pattern| [pattern, best { tool.call(pattern:) }.first] }
    end
  end

  def row(pattern, (ruby, found), (rust, rust_found), call)
    abort "#{pattern}: Ruby matched #{found}, globset #{rust_found}" unless found == rust_found
    puts format(ROW, pattern:, matches: found, ruby: ms(ruby), rust: ms(rust), ratio: format('%.3fx', rust / ruby),
                     call: ms(call), share: format('%.0f%%', 100 * ruby / call))
  end

  def ms(seconds) = format('%.2f ms', seconds * 1000)
end

GlobBench.new(Integer(ARGV.fetch(0, 20_000))).run if $PROGRAM_NAME == __FILE__
