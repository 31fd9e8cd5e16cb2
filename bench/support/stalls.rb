# frozen_string_literal: true

require 'fileutils'
require 'securerandom'
require 'tmpdir'
require_relative '../../spec/support/text_pdf'

# What bench/async.rb measures and bin/test-async checks: the longest a ticker waits
# past its tick while other work runs beside it, in a fiber under Async or in a
# thread; and the work itself: a PDF conversion, a code run, a search of many files
# (LongWork has more).
module Stalls
  TICK = 0.01

  module_function

  def now
    Process.clock_gettime(Process::CLOCK_MONOTONIC)
  end

  # [the longest stall of a ticker fiber while +work+ runs in another fiber of the
  # same Async reactor, the work's own seconds]
  def fibers(&work)
    longest = 0.0
    took = nil
    Sync do |task|
      done = false
      ticker = task.async { longest = longest_gap { done } }
      took = task.async { timed(&work) }.wait
      done = true
      ticker.wait
    end
    [longest, took]
  end

  # The same with a ticker thread beside the work on the calling thread.
  def threads(&work)
    longest = 0.0
    done = false
    ticker = Thread.new { longest = longest_gap { done } }
    took = timed(&work)
    done = true
    ticker.join
    [longest, took]
  end

  # Ticks every TICK until the block says done; the longest lateness of a tick.
  def longest_gap
    longest = 0.0
    last = now
    until yield
      sleep TICK
      longest = [longest, now - last - TICK].max
      last = now
    end
    longest
  end

  def timed
    started = now
    yield
    now - started
  end

  # A folder store holding a PDF of +pages+ pages of text under +dir+, a document of
  # its own each time: the convert workers keep the text of a document they read by
  # its digest, and the same bytes again would be a look-up, not a conversion.
  def pdf_store(dir, pages)
    store = RubyLLM::FileStore::Directory.new(File.join(dir, "pdf-#{pages}"))
    line = 'The quick brown fox jumps over the lazy dog, and the lazy dog does not mind at all.'
    text = Array.new(pages * TextPDF::LINES_PER_PAGE) { |n| "#{line} #{n}" }.unshift(SecureRandom.hex).join("\n")
    store.write('big.pdf', TextPDF.from_markdown(text))
    store
  end

  # Reads the PDF through read_file, which converts it (a fresh store each time: no
  # text kept from before).
  def convert(store)
    RubyLLM::FileStore::Tools::ReadFile.new(store).call(path: 'big.pdf', limit: 1)
  end

  # Runs +seconds+ of Python in the sandbox.
  def run_code(dir, seconds)
    limits = RubyLLM::FileStore::CodeRunner::DEFAULT_LIMITS.slice(*RubyLLM::FileStore::CodeRunner::NATIVE_LIMITS)
    argv = ['/usr/bin/python3', '-c', "import time; time.sleep(#{seconds})"]
    run_dir = Dir.mktmpdir('run', dir)
    RubyLLM::FileStore::Native.run(argv:, dir: run_dir, sandbox: true, timeout: seconds + 30.0, limits:)
  ensure
    FileUtils.rm_rf(run_dir) if run_dir
  end

  # A folder store of +count+ text files of about 20 KB each.
  def search_store(dir, count)
    store = RubyLLM::FileStore::Directory.new(File.join(dir, "search-#{count}"))
    body = Array.new(400) { |n| "line #{n} of some notes about nothing in particular, kept for the search" }.join("\n")
    count.times { |n| store.write("notes/#{n / 100}/file#{n}.txt", "#{body}\nneedle #{n}\n") }
    store
  end

  def search(store)
    RubyLLM::FileStore::Tools::SearchFiles.new(store).call(pattern: 'needle 4999\b')
  end
end
