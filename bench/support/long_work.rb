# frozen_string_literal: true

require 'securerandom'
require_relative '../../spec/support/hostile_documents'

# Work of about a second or more that the gem does off the reactor under a Fiber
# scheduler, beside Stalls' conversion, code run and search: a search of a large text,
# a listing of a large tree, a ranked search's index built and read back, a PDF a
# worker takes seconds over. Long
# enough that the same work kept on the reactor's thread would stall its other fibers
# past the checks' bound (spec/async/stalls_check.rb), or still run when its fiber is
# stopped (spec/async/stops_check.rb).
module LongWork
  # A line of the large text, and a pattern that only its last line matches: with no
  # literal to look for first, the search reads every byte with the regex.
  LINE = "the quick brown fox jumps over the lazy dog 0123456789 \u00C4\u00D6\u00DC \u00E9\u00E8\u00EA\n"
  SLOW_PATTERN = '\p{L}{2,}\s\p{L}*[xyz]\p{L}*\s\d{4}'

  module_function

  # A folder store holding one text file of +megabytes+ MB under +names+ names (hard
  # links: one file on disk), whose last line alone matches SLOW_PATTERN.
  def large_text_store(dir, megabytes, names)
    store = RubyLLM::FileStore::Directory.new(File.join(dir, "text-#{megabytes}-#{names}"))
    first = File.join(store.local_root, 'text0.txt')
    File.binwrite(first, "#{LINE * (megabytes * 1_000_000 / LINE.bytesize)}needle zebra 4242\n")
    1.upto(names - 1) { |n| File.link(first, File.join(store.local_root, "text#{n}.txt")) }
    store
  end

  def slow_search(store)
    RubyLLM::FileStore::Tools::SearchFiles.new(store).call(pattern: SLOW_PATTERN, ignore_case: true)
  end

  # A folder store of +count+ files named with about 245 characters, 1,000 to a
  # folder (hard links, 50,000 to a file: cheaper to make than files), with no
  # extension, so the listing reads each one's first bytes for its type: long names
  # and those reads make a listing of 600,000 take about a second, made in 10 to 20.
  def tree_store(dir, count)
    store = RubyLLM::FileStore::Directory.new(File.join(dir, "tree-#{count}"))
    pad = 'x' * 240 # and up to 6 digits: 255 bytes is the most a name may take
    (count / 50_000.0).ceil.times { |n| File.write(File.join(dir, "linked#{n}"), "some words\n") }
    count.times do |n|
      folder = File.join(store.local_root, "#{n / 1000}#{pad}")
      Dir.mkdir(folder) if (n % 1000).zero?
      File.link(File.join(dir, "linked#{n / 50_000}"), File.join(folder, "#{n}#{pad}"))
    end
    store
  end

  def list(store)
    RubyLLM::FileStore::Tools::ListFiles.new(store).call
  end

  # A folder store of +files+ texts of about +megabytes+ MB each, for the ranked
  # search: paragraphs of words made up at random under headings, each file's its own.
  def passages_store(dir, files, megabytes)
    store = RubyLLM::FileStore::Directory.new(File.join(dir, "passages-#{files}"))
    rng = Random.new(files)
    words = Array.new(20_000) { Array.new(rng.rand(3..9)) { rng.rand(97..122).chr }.join }
    paragraphs = Array.new(2000) { |n| "## Part #{n}\n\n#{words.sample(60, random: rng).join(' ')}.\n\n" }
    files.times do |n|
      text = Array.new(megabytes * 1_000_000 / paragraphs.first.bytesize) { paragraphs.sample(random: rng) }.join
      File.write(File.join(store.local_root, "part#{n}.md"), "# Part #{n}\n\n#{text}")
    end
    store
  end

  def rank(store)
    store.rank_passages('the parts made up at random')
  end

  # A PDF a worker spends seconds on: one page showing a letter millions of times, a
  # document of its own each time, so no worker has its text already.
  def slow_pdf
    "#{HostileDocuments.pdf(HostileDocuments.shows(60 << 20))}%#{SecureRandom.hex}\n"
  end
end
