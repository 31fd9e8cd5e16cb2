# frozen_string_literal: true

# The first document conversion after boot: a Ruby process loads the gem and
# converts one small HTML page, which starts the process's convert supervisor and
# its first worker (or, in a build before the supervisor, the worker alone). Run by
# hand from the gem's folder after `rake compile`:
#
#   ruby bench/first_conversion.rb                 # this build
#   ruby bench/first_conversion.rb --against LIB   # and LIB's, interleaved, with ratios
#
# LIB is the lib/ folder of another built checkout. Each sample is a Ruby process of
# its own; the time is that of the first convert_html call alone, then of the next
# nine; RUNS samples of each build, median shown.

require 'open3'
require 'rbconfig'
require_relative '../spec/ruby_llm_path'

RUNS = 15
CHILD = <<~RUBY
  require 'ruby_llm/file_store'
  clock = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) }
  started = clock.call
  RubyLLM::FileStore::Native.convert_html('<p>first</p>')
  first = clock.call - started
  started = clock.call
  9.times { |n| RubyLLM::FileStore::Native.convert_html("<p>next \#{n}</p>") }
  puts [first, clock.call - started].join(' ')
RUBY

def sample(lib)
  output, status = Open3.capture2e(RbConfig.ruby, *RubyLLMPath.ruby_options, '-I', lib, '-e', CHILD)
  raise output unless status.success?

  output.split.map(&:to_f)
end

def median(values)
  values.sort[values.size / 2]
end

builds = { 'this build' => File.expand_path('../lib', __dir__) }
builds['against'] = ARGV[ARGV.index('--against') + 1] if ARGV.include?('--against')
samples = builds.transform_values { [] }
RUNS.times { builds.each { |name, lib| samples[name] << sample(lib) } }
medians = samples.transform_values { |runs| [median(runs.map(&:first)), median(runs.map(&:last))] }
medians.each do |name, (first, next_nine)|
  puts format('%-10<name>s first conversion %<first>.1f ms, next nine %<next>.1f ms',
              name:, first: first * 1000, next: next_nine * 1000)
end
if medians['against']
  (first, next_nine), (base_first, base_next) = medians.values_at('this build', 'against')
  puts format('this build / against: first %<first>.2fx, next nine %<next>.2fx',
              first: first / base_first, next: next_nine / base_next)
end
