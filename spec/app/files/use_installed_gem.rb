# frozen_string_literal: true

# Run with an installed gem, as a user would after `gem install`: a folder store, a
# search and conversions (HTML, and a PDF in the convert worker) through it; prints
# what it saw as JSON. ARGV[0]: the folder.
require 'json'
require 'ruby_llm/file_store'

# Under qemu-user (spec/app/arm64_gem_under_qemu.rb), the program that starts the worker
# there in place of the gem's.
checked = ENV.fetch('RUBY_LLM_FILE_STORE_CHECK_CONVERTER', '')
RubyLLM::FileStore::Native.converter_program = checked unless checked.empty?

store = RubyLLM.file_store.directory(ARGV.fetch(0))
store.write('notes/plan.md', "# Plan\nShip it on Friday\n")
store.write('page.html', '<html><head><script>var hidden = 1</script></head>' \
                         '<body><h1>Quarterly report</h1><p>Revenue grew</p></body></html>')
pdfs = RubyLLM.file_store.directory("#{ARGV.fetch(0)}-pdf")
pdfs.write('report.pdf', File.binread(File.expand_path('../../fixtures/documents/report.pdf', __dir__)))
registry = RubyLLM.respond_to?(:config) ? RubyLLM.config.file_converters : RubyLLM::FileStore.file_converters
registry['text/html'] = RubyLLM.file_store.converter.html

puts JSON.generate(
  'native' => $LOADED_FEATURES.grep(/file_store_native\.(so|bundle)\z/),
  'worker' => RubyLLM::FileStore::Native.converter_program,
  'ruby_llm' => defined?(RubyLLM::Chat) ? $LOADED_FEATURES.grep(%r{/lib/ruby_llm\.rb\z}) : [],
  'list' => store.list.map(&:path),
  'search' => RubyLLM::FileStore::Tools::SearchFiles.new(store).call(pattern: 'ship|revenue', ignore_case: true),
  'text' => store.text('page.html'),
  'pdf' => RubyLLM::FileStore::Tools::SearchFiles.new(pdfs).call(pattern: 'grew \\d+ percent')
)
