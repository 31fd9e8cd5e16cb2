# frozen_string_literal: true

# The first document conversion after boot, each sample a Ruby process of its own
# that loads the gem (and ruby_llm) with a cold pool:
#
# - convert_html: the first Native.convert_html of a small page, which starts the
#   process's convert supervisor and its first worker (or, in a build before the
#   supervisor, the worker alone), then the nine after it;
# - chat read_file: a chat gets a store holding a 1-page PDF (with_file_store, which
#   in this build starts a worker ahead of need, as the store did when made), the
#   model answers after PAUSE seconds (0 for a read at once), and its read_file of
#   the PDF is timed;
# - store read_file: a store holding the PDF is made with no chat (as a job makes
#   one; in this build the first store starts a worker ahead of need), and after
#   PAUSE seconds read_file of the PDF, called directly, is timed.
#
# Run by hand from the gem's folder after `rake compile`:
#
#   ruby bench/first_conversion.rb                 # this build
#   ruby bench/first_conversion.rb --against LIB   # and LIB's, interleaved, with ratios
#
# LIB is the lib/ folder of another built checkout (a820bce's for the in-process
# baseline). RUNS samples of each build and kind (15, or the RUNS variable), median
# shown.

require 'open3'
require 'rbconfig'
require_relative '../spec/ruby_llm_path'

RUNS = Integer(ENV.fetch('RUNS', 15))
PAUSES = [0, 0.2].freeze
TEXT_PDF = File.expand_path('../spec/support/text_pdf.rb', __dir__)

CLOCK = 'clock = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) }'
HTML = <<~RUBY.freeze
  require 'ruby_llm/file_store'
  #{CLOCK}
  started = clock.call
  RubyLLM::FileStore::Native.convert_html('<p>first</p>')
  first = clock.call - started
  started = clock.call
  9.times { |n| RubyLLM::FileStore::Native.convert_html("<p>next \#{n}</p>") }
  puts [first, clock.call - started].join(' ')
RUBY

# A child that makes a store holding a 1-page PDF, runs +reader+ (code that gives
# +read+, a read_file tool), waits +pause+ seconds and times read_file of the PDF.
def read_child(pause, reader)
  <<~RUBY
    require 'ruby_llm'
    require 'ruby_llm/file_store'
    require #{TEXT_PDF.inspect}
    #{CLOCK}
    RubyLLM.configure { |config| config.openai_api_key = 'unused' }
    pdf = TextPDF.from_markdown("# Report\\n\\nQuarterly revenue grew.")
    store = RubyLLM.file_store.memory
    store.write('report.pdf', pdf)
    #{reader}
    sleep #{pause}
    started = clock.call
    text = read.is_a?(RubyLLM::Tool) ? read.call({ 'path' => 'report.pdf' }) : read.call(path: 'report.pdf')
    took = clock.call - started
    raise text unless text.include?('Quarterly revenue grew')
    puts took
  RUBY
end

CHAT = "read = RubyLLM.chat(model: 'gpt-4o', provider: :openai, assume_model_exists: true)" \
       '.with_file_store(store).tools[:read_file]'
STORE = 'read = RubyLLM::FileStore::Tools::ReadFile.new(store)'

KINDS = { 'convert_html' => HTML }
        .merge(PAUSES.to_h { |pause| ["chat read_file after #{pause} s", read_child(pause, CHAT)] })
        .merge(PAUSES.to_h { |pause| ["store read_file after #{pause} s", read_child(pause, STORE)] })

def sample(lib, child)
  output, status = Open3.capture2e(RbConfig.ruby, *RubyLLMPath.ruby_options, '-I', lib, '-e', child)
  raise output unless status.success?

  output.split.map(&:to_f)
end

def median(values)
  values.sort[values.size / 2]
end

builds = { 'this build' => File.expand_path('../lib', __dir__) }
builds['against'] = ARGV[ARGV.index('--against') + 1] if ARGV.include?('--against')
samples = Hash.new { |all, key| all[key] = [] }
RUNS.times do
  KINDS.each { |kind, child| builds.each { |name, lib| samples[[kind, name]] << sample(lib, child) } }
end
medians = samples.transform_values { |runs| runs.transpose.map { |values| median(values) * 1000 } }
KINDS.each_key do |kind|
  builds.each_key do |name|
    first, next_nine = medians[[kind, name]]
    nine = next_nine ? format(', next nine %.1f ms', next_nine) : ''
    puts format('%-28<kind>s %-10<name>s first %<first>.1f ms%<nine>s', kind:, name:, first:, nine:)
  end
  next unless builds.key?('against')

  ratios = medians[[kind, 'this build']].zip(medians[[kind, 'against']]).map do |mine, base|
    format('%.2fx', mine / base)
  end
  puts format('%-28<kind>s this build / against: %<ratios>s', kind:, ratios: ratios.join(', '))
end
