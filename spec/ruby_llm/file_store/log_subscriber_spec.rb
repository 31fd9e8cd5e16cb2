# frozen_string_literal: true

require 'logger'
require 'open3'
require 'rbconfig'
require 'stringio'
require 'active_support'
require 'active_support/notifications'
require 'ruby_llm/file_store/log_subscriber'

# The events through ActiveSupport::Notifications, as a Rails app has them (with
# ruby_llm, whose Railtie makes it config.instrumenter; without, directly), and the
# lines LogSubscriber writes for them.
RSpec.describe RubyLLM::FileStore::LogSubscriber do
  let(:log) { StringIO.new }
  let(:store) { RubyLLM.file_store.memory(max_file_size: 20) }
  let(:reads) { RubyLLM::FileStore::Reads.new }

  around do |example|
    logger = ActiveSupport::LogSubscriber.logger
    ActiveSupport::LogSubscriber.logger = Logger.new(log, level: :debug, formatter: ->(level, *, line) { "#{level} #{line}\n" })
    instrumenter = RubyLLM.config.instrumenter if RubyLLM.respond_to?(:config)
    RubyLLM.config.instrumenter = ActiveSupport::Notifications if RubyLLM.respond_to?(:config)
    example.run
  ensure
    ActiveSupport::LogSubscriber.logger = logger
    RubyLLM.config.instrumenter = instrumenter if RubyLLM.respond_to?(:config)
  end

  def tool(name)
    RubyLLM::FileStore::Tools.declared.fetch(name).new(store, reads:)
  end

  def lines = log.string.lines.map(&:chomp)

  it 'writes a debug line for each tool call, with its outcome and time' do
    tool('write_file').call(path: 'plan.md', content: 'secret plan')
    tool('read_file').call(path: 'missing.md')

    expect(lines).to match([
                             match(/\ADEBUG   FileStore write_file plan\.md: ok, 39 bytes out \(\d+\.\dms\)\z/),
                             match(/\ADEBUG   FileStore read_file missing\.md: error: No file at missing\.md\. .*ms\)\z/)
                           ])
    expect(log.string).not_to include('secret plan')
  end

  it 'warns of each refused write, saying why' do
    store.write('kept.md', 'old')
    tool('write_file').call(path: 'big.md', content: 'x' * 21)
    tool('write_file').call(path: 'kept.md', content: 'new')

    warnings = lines.grep(/\AWARN /)
    expect(warnings).to match([
                                start_with('WARN   FileStore refused write_file big.md (too_large): big.md would be ' \
                                           '21 bytes, over'),
                                start_with('WARN   FileStore refused write_file kept.md (unread): kept.md exists ' \
                                           'and has not been read.')
                              ])
    expect(lines.grep(/\ADEBUG /).size).to eq(2)
  end

  it 'warns of a converter that raises, and writes a debug line for each conversion' do
    converters = RubyLLM::FileStore::Converters.defaults.merge(
      'application/x-broken' => ->(_file) { raise KeyError, 'key not found: :pages' },
      'application/x-fine' => ->(file) { "text of #{file.filename}" }
    )
    config = Struct.new(:file_converters).new(converters)
    store.write('a.broken', 'bytes', content_type: 'application/x-broken')
    store.write('b.fine', 'bytes', content_type: 'application/x-fine')
    RubyLLM::FileStore.raise_converter_errors = false
    told = RubyLLM::FileStore::Tools::ReadFile.new(store, config:).call(path: 'a.broken')
    store.text('b.fine', config:)
    store.text('b.fine', config:)

    expect(told).to eq('Error: a.broken could not be converted: its application/x-broken converter failed')
    expect(lines.grep(/FileStore conver/)).to match([
                                                      start_with('WARN   FileStore converter failed on a.broken ' \
                                                                 '(application/x-broken, 5 bytes): KeyError: key not ' \
                                                                 'found: :pages ('),
                                                      start_with('DEBUG   FileStore converted b.fine ' \
                                                                 '(application/x-fine, 5 bytes): 14 bytes of text ('),
                                                      start_with('DEBUG   FileStore converted b.fine ' \
                                                                 '(application/x-fine, 5 bytes): 14 bytes of text ' \
                                                                 '(cached) (')
                                                    ])
  ensure
    RubyLLM::FileStore.raise_converter_errors = nil
  end

  it 'writes nothing below its level but the warnings' do
    ActiveSupport::LogSubscriber.logger.level = :info
    tool('read_file').call(path: 'missing.md')
    tool('write_file').call(path: 'big.md', content: 'x' * 21)

    expect(lines).to match([start_with('WARN   FileStore refused write_file big.md (too_large)')])
  end

  it 'emits nothing, and the tools work, where Active Support is not loaded' do
    script = <<~RUBY
      require 'ruby_llm/file_store'
      store = RubyLLM.file_store.memory
      puts RubyLLM::FileStore::Tools::WriteFile.new(store).call(path: 'a.md', content: 'hi')
      puts defined?(ActiveSupport).inspect
    RUBY
    lib = File.expand_path('../../../lib', __dir__)
    out, status = Open3.capture2e(RbConfig.ruby, *RubyLLMPath.ruby_options, '-I', lib, '-e', script)

    expect(status).to be_success
    expect(out).to eq("Wrote a.md (text/markdown, 2 bytes)\nnil\n")
  end
end
