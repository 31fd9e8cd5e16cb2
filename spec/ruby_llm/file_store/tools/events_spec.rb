# frozen_string_literal: true

require 'logger'
require 'stringio'
require 'active_support'
require 'active_support/notifications'
require 'ruby_llm/file_store/log_subscriber'

# A tool's events as a Rails app has them (ActiveSupport::Notifications as ruby_llm's
# instrumenter, the gem's LogSubscriber writing the log), with what the model chose
# in them and subscribers that raise.
RSpec.describe RubyLLM::FileStore::Tools::Events do
  let(:log) { StringIO.new }
  let(:store) { RubyLLM.file_store.memory(max_file_size: 20) }
  let(:reads) { RubyLLM::FileStore::Reads.new }
  let(:subscribers) { [] }

  around do |example|
    logger = ActiveSupport::LogSubscriber.logger
    ActiveSupport::LogSubscriber.logger = Logger.new(log, level: :debug, formatter: ->(level, *, line) { "#{level} #{line}\n" })
    instrumenter = RubyLLM.config.instrumenter
    RubyLLM.config.instrumenter = ActiveSupport::Notifications
    example.run
  ensure
    subscribers.each { |subscriber| ActiveSupport::Notifications.unsubscribe(subscriber) }
    ActiveSupport::LogSubscriber.logger = logger
    RubyLLM.config.instrumenter = instrumenter
    RubyLLM::FileStore.raise_converter_errors = nil
  end

  def tool(name, **options)
    RubyLLM::FileStore::Tools.declared.fetch(name).new(store, reads:, **options)
  end

  # A subscriber of +event+ with an APM agent's bug: it raises at the event's end.
  def buggy(event, error = RuntimeError.new('apm agent bug'))
    subscribers << ActiveSupport::Notifications.subscribe("#{event}.file_store.ruby_llm") { raise error }
  end

  describe 'the log' do
    let(:forged) { "\nStarted GET \"/admin/users\" for 127.0.0.1 at 2026-01-01\n" }

    it 'shows what the model chose escaped, so no call forges a line or sends an escape sequence' do
      tool('write_file').call(path: "notes#{forged}.md", content: 'x')
      tool('search_files').call(pattern: "(#{forged}")
      tool('read_file').call(path: "no\e]0;owned\a\e[2J#{forged}.md")
      tool('write_file').call(path: "big\u2028Started GET \"/admin\"\u0085.md", content: 'x' * 30)

      lines = log.string.lines
      # 4 tool events: one line each.
      expect(lines.size).to eq(4)
      expect(lines).to all(match(/\A(DEBUG|WARN)   FileStore (write_file|search_files|read_file|refused)[ :]/))
      expect(lines.grep(/^Started GET/)).to be_empty
      expect(log.string).not_to match(/[\e\u2028\u0085]/)
      expect(lines.last).to include('write_file "big\u2028Started GET \"/admin\"\u0085.md": error: ')
    end

    it 'shows plain paths and messages as they are' do
      tool('write_file').call(path: 'notes/plan é.md', content: 'x')
      tool('read_file').call(path: 'gone.md')

      expect(log.string.lines.map(&:chomp)).to match(
        [match(%r{\ADEBUG   FileStore write_file notes/plan é\.md: ok, \d+ bytes out \(}),
         match(/\ADEBUG   FileStore read_file gone\.md: error: No file at gone\.md\. list_files/)]
      )
    end
  end

  describe 'a subscriber that raises' do
    it 'changes nothing a write did or answers, and is reported in the log' do
      buggy(:tool)
      answer = tool('write_file').call(path: 'a.md', content: 'kept')

      expect(answer).to eq('Wrote a.md (text/markdown, 4 bytes)')
      expect(store.read('a.md')).to eq('kept')
      expect(log.string).to include('ERROR FileStore: a subscriber of tool.file_store.ruby_llm raised RuntimeError: ' \
                                    '"apm agent bug"; the tool went on')
    end

    it 'leaves a refused write the refusal the model reads' do
      buggy(:refused_write)
      answer = tool('write_file').call(path: 'big.md', content: 'x' * 30)

      expect(answer).to start_with("Error: big.md would be 30 bytes, over this store's limit")
      expect(answer).not_to include('apm')
      expect(store['big.md']).to be_nil
    end

    it "runs the tool once when a subscriber's start raises" do
      starts = Class.new do
        def start(*) = raise(ArgumentError, 'apm start bug')
        def finish(*) = nil
      end
      subscribers << ActiveSupport::Notifications.subscribe('tool.file_store.ruby_llm', starts.new)
      writes = []
      answer = tool('write_file', on_write: ->(file) { writes << file.path }).call(path: 'a.md', content: 'once')

      expect(answer).to eq('Wrote a.md (text/markdown, 4 bytes)')
      expect(writes).to eq(['a.md'])
      expect(log.string).to include('a subscriber of tool.file_store.ruby_llm raised ArgumentError')
    end

    it "raises a converter's own exception in development rather than the subscriber's" do
      RubyLLM::FileStore.raise_converter_errors = true
      config = Struct.new(:file_converters).new(
        RubyLLM::FileStore::Converters.defaults.merge('application/x-broken' => ->(_) { raise KeyError, 'no :pages' })
      )
      store.write('a.broken', 'bytes', content_type: 'application/x-broken')
      buggy(:tool)
      buggy(:convert)

      expect { tool('read_file', config:).call(path: 'a.broken') }.to raise_error(KeyError, 'no :pages')
    end

    it 'is reported to Rails.error', :ruby_llm do
      skip 'Active Support has no error reporter before Rails 7' unless ActiveSupport.respond_to?(:error_reporter)

      reported = []
      reporter = Object.new
      reporter.define_singleton_method(:report) { |error, **options| reported << [error.message, options] }
      ActiveSupport.error_reporter.subscribe(reporter)
      buggy(:tool)
      tool('write_file').call(path: 'a.md', content: 'kept')

      expect(reported).to match([['apm agent bug', include(handled: true, context: { event: 'tool.file_store.ruby_llm' })]])
    ensure
      ActiveSupport.error_reporter.unsubscribe(reporter) if ActiveSupport.respond_to?(:error_reporter)
    end
  end
end
