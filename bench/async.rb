# frozen_string_literal: true

# How long the other fibers of a Fiber scheduler wait while one fiber does work that
# takes seconds: a ticker fiber sleeps 10 ms in a loop beside a fiber that converts a
# PDF of PAGES pages (10,000 unless the variable says: about 2 s on a quiet 2-core
# machine), runs 2 s of code in the sandbox, or searches 5,000 files, under
# Async; the same under Async as the gem did before (the native work on the reactor's
# thread, holding it for the work's time); and the same work on threads, with a
# ticker thread. The figure is the
# ticker's longest stall past its tick; the goal under Async is 50 ms plus the
# scheduler's own tick. Each work runs N times (default 3); the table shows the
# worst stall and the median time of the work.
#
# Run by hand in the newer stack's root, after building there:
#
#   bin/newer-ruby run ruby3.3 -S rake compile
#   bin/newer-ruby run ruby3.3 bench/async.rb [N]

$LOAD_PATH.unshift File.expand_path('../lib', __dir__)
require_relative '../spec/ruby_llm_path'
RubyLLMPath.load!
require 'ruby_llm/file_store'
require 'async'
require 'timeout'
require_relative 'support/stalls'

N = Integer(ARGV.fetch(0, 3))
PAGES = Integer(ENV.fetch('PAGES', 10_000))

# Under Async with the work kept on the reactor's thread, as before: the fiber marked
# as inside one of the store's sections (Interrupts), where the native side does not
# hand work to a thread of its own.
def on_the_reactor(&work)
  Stalls.fibers do
    Thread.current[:ruby_llm_file_store_deferring] = true
    work.call
  ensure
    Thread.current[:ruby_llm_file_store_deferring] = nil
  end
end

ms = ->(seconds) { format('%6.1f ms', seconds * 1000) }

# Each work by name: a lambda that runs it one way (fibers, on_the_reactor, threads).
def works(dir, sandbox)
  search_store = Stalls.search_store(dir, 5000)
  Stalls.search(search_store) # warm the page cache
  works = {
    # A fresh store for each conversion (no text kept from before), made before the
    # clock starts: making the PDF is Ruby's work.
    "read_file of a #{PAGES}-page PDF" => lambda do |way|
      store = Stalls.pdf_store(Dir.mktmpdir('pdf', dir), PAGES)
      way.call { Stalls.convert(store) }
    end,
    'run_code of time.sleep(2)' => ->(way) { way.call { Stalls.run_code(dir, 2) } },
    'search_files over 5,000 files' => ->(way) { way.call { Stalls.search(search_store) } }
  }
  works.delete('run_code of time.sleep(2)') if sandbox
  works
end

Dir.mktmpdir('ruby_llm_bench_async') do |dir|
  sandbox = RubyLLM::FileStore::Native.sandbox_problem
  puts "Ruby #{RUBY_VERSION}, Async #{Async::VERSION}, #{N} rounds; a ticker sleeps #{(Stalls::TICK * 1000).round} ms"
  line = ->(*cells) { puts cells.zip([38, 24, 24, 24]).map { |cell, width| cell.ljust(width) }.join(' ') }
  line.call('work', 'Async: stall / work', 'before: stall / work', 'threads: stall / work')
  works(dir, sandbox).each do |name, work|
    rounds = Array.new(N) do
      [work.call(Stalls.method(:fibers)), work.call(method(:on_the_reactor)), work.call(Stalls.method(:threads))]
    end
    row = rounds.transpose.map do |results|
      stalls, took = results.transpose
      "#{ms.call(stalls.max)} / #{format('%.2f s', took.sort[took.size / 2])}"
    end
    line.call(name, *row)
  end
  puts "run_code left out: #{sandbox}" if sandbox
end
