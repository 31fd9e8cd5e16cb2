# frozen_string_literal: true

# The ranked search's first question in a new store object, with the index an earlier
# one saved (read back) against none (built from every file), on a folder store of
# the Python standard library's sources. Run by hand from the gem's folder after
# `rake compile`:
#
#   ruby bench/saved_index.rb [SOURCES]   # SOURCES: /usr/lib/python3.11 by default
#
# Each first question runs in a forked child of its own, so no process keeps what an
# earlier one read; times are the best of 3.

$LOAD_PATH.unshift(File.expand_path('../lib', __dir__))
require_relative '../spec/ruby_llm_path'
RubyLLMPath.load!
require 'ruby_llm/file_store'
require 'fileutils'
require 'tmpdir'

sources = ARGV.first || '/usr/lib/python3.11'
QUESTION = 'how do I read a file line by line and strip the newline'

def best_of_three(root, saved:)
  3.times.map do
    reader, writer = IO.pipe
    pid = fork do
      FileUtils.rm_rf(File.join(root, '.ruby_llm_index')) unless saved
      store = RubyLLM.file_store.directory(root)
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      store.rank_passages(QUESTION)
      writer.puts(Process.clock_gettime(Process::CLOCK_MONOTONIC) - started)
    end
    writer.close
    Process.wait(pid)
    reader.read.to_f
  end.min
end

Dir.mktmpdir('saved_index_bench') do |tmp|
  root = File.join(tmp, 'store')
  files = Dir.glob('**/*.py', base: sources).reject { |path| path.split('/').any? { |part| part.start_with?('.') } }
  files.each do |path|
    FileUtils.mkdir_p(File.dirname(File.join(root, path)))
    FileUtils.cp(File.join(sources, path), File.join(root, path))
  end
  store = RubyLLM.file_store.directory(root)
  store.rank_passages(QUESTION)
  saved = File.size(File.join(root, '.ruby_llm_index', 'passages'))
  bytes = files.sum { |path| File.size(File.join(root, path)) }
  built = best_of_three(root, saved: false)
  read_back = best_of_three(root, saved: true)
  passages = store.passages.instance_variable_get(:@native).size
  puts "#{files.size} files, #{(bytes / 1e6).round(1)} MB of text, #{passages} passages; " \
       "the saved index: #{(saved / 1e6).round(1)} MB"
  puts "first question, index built from the files: #{built.round(3)} s"
  puts "first question, index read back:             #{read_back.round(3)} s (#{(read_back / built).round(2)}x)"
  puts "load average: #{File.read('/proc/loadavg').split.first(3).join(' ')}"
end
