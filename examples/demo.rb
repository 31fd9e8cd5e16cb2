# frozen_string_literal: true

# The main job: a real RubyLLM::Chat is asked about a PDF and calls a tool whose
# result is 30,000 characters, once without a file store and once with one. For
# each request the demo prints what it carried and its size, read from the bodies
# the provider received.
#
#   bin/demo                         # a scripted OpenAI-compatible server on 127.0.0.1
#   OPENAI_API_KEY=sk-... bin/demo   # OpenAI itself (DEMO_MODEL, default gpt-4.1-mini),
#                                    # each request recorded on 127.0.0.1 on its way
#
# ruby_llm comes from RUBY_LLM_PATH (folders of ruby_llm and its dependencies, one
# lib/ each, joined by :), else the gem kit beside the checkout
# (../shared/gems/ruby_llm-main), else the installed gem.
ROOT = File.expand_path('..', __dir__)
KIT = File.expand_path('../shared/gems/ruby_llm-main', ROOT)
RUBY_LLM_SETS = ENV.fetch('RUBY_LLM_PATH') { File.directory?(KIT) ? KIT : '' }.split(':')
RUBY_LLM_SETS.reverse_each { |set| Dir[File.join(set, '*', 'lib')].reverse_each { |lib| $LOAD_PATH.unshift(lib) } }
$LOAD_PATH.unshift(File.join(ROOT, 'lib'))
begin
  require 'ruby_llm'
rescue LoadError => e
  abort "bin/demo needs ruby_llm (#{e.message}): set RUBY_LLM_PATH to a folder of ruby_llm and its " \
        'dependencies, one lib/ each, or install the ruby_llm gem'
end
require 'ruby_llm/file_store'
require 'tmpdir'
require_relative 'support/demo_printout'
require_relative 'support/recording_proxy'
require_relative 'support/sample_pdf'
require_relative '../bench/support/conversation_fixtures'
require_relative '../spec/support/scripted_llm_server'

# The bench's tool under a name of its own: the model calls it sales_report.
class SalesReport < ConversationFixtures::SalesReport; end

# The same four questions asked twice, and what each request carried.
class ChatDemo
  include DemoPrintout

  Ask = Struct.new(:question, :attachment, :requests, :answer, keyword_init: true)

  QUESTIONS = ['Summarize the attached contract in two sentences.',
               'Pull the latest sales report: which region sold the most units?',
               "Quote the contract's termination clause word for word.",
               'Draft a one-line note for the board about the contract and the sales.'].freeze
  PAGES = 12

  def initialize(folder)
    @contract = contract(File.join(folder, 'contract.pdf'))
    @api_key = ENV.fetch('OPENAI_API_KEY', nil)
    @recorder = if @api_key
                  RecordingProxy.start(ENV.fetch('OPENAI_API_BASE', 'https://api.openai.com/v1'))
                else
                  ScriptedLLMServer.start
                end
  end

  def run
    introduce
    without = conversation(store: nil)
    with = conversation(store: RubyLLM.file_store.memory)
    compare(without, with)
  ensure
    @recorder.stop
  end

  private

  def introduce
    ruby_llm = $LOADED_FEATURES.find { |path| path.end_with?('/ruby_llm.rb') }
    puts "ruby_llm #{RubyLLM::VERSION} (#{ruby_llm})"
    puts @api_key ? "OpenAI (#{model}) through #{@recorder.base_url}, which records each request on its way" : scripted
    size = RequestSummary.number(File.size(@contract))
    puts "The chat: #{File.basename(@contract)} (#{PAGES} pages, #{size} bytes) " \
         "attached to question 1; in question 2 the model calls #{tool.name}, whose result is " \
         "#{RequestSummary.number(ConversationFixtures::RESULT_SIZE)} characters."
  end

  def scripted
    "A scripted OpenAI-compatible server on 127.0.0.1:#{@recorder.port}, answering as a model would " \
      '(set OPENAI_API_KEY to ask OpenAI instead)'
  end

  def model
    ENV.fetch('DEMO_MODEL', 'gpt-4.1-mini')
  end

  def tool
    SalesReport.new
  end

  # A contract whose termination clause sits on page 7 of PAGES.
  def contract(path)
    pages = (1..PAGES).map do |page|
      (1..40).map { |line| "Section #{page}.#{line}. The supplier delivers the services of annex #{page} on time." }
    end
    pages[6][12] = "Section 7.13. Termination. Either party may end this agreement with 60 days' written notice."
    SamplePDF.write(path, pages)
  end

  def conversation(store:)
    section(store ? "With a file store (#{store.class.name})" : 'Without a file store')
    script(store)
    chat = new_chat.with_tools(SalesReport)
    chat.with_file_store(store) if store
    QUESTIONS.each_with_index.map { |question, index| ask(chat, question, index.zero? ? @contract : nil) }
  end

  def new_chat
    context = RubyLLM.context do |config|
      next @recorder.point(config) unless @api_key

      config.openai_api_key = @api_key
      config.openai_api_base = @recorder.base_url
    end
    return context.chat(model:, provider: :openai) if @api_key

    context.chat(model: ScriptedLLMServer::MODEL, provider: :openai, assume_model_exists: true)
  end

  # What the scripted model answers; with a store it searches the files for the
  # clause, since the PDF is no longer in the conversation.
  def script(store)
    return if @api_key

    s = ScriptedLLMServer
    clause = s.text("\"Either party may end this agreement with 60 days' written notice.\" (section 7.13)")
    search = store ? [s.tool_call('search_files', { pattern: 'termination', ignore_case: true })] : []
    @recorder.script(s.text('A services agreement: the supplier delivers the services of each annex on time.'),
                     s.tool_call(tool.name), s.text('North sold the most units.'), *search, clause,
                     s.text('Board note: the contract ends on 60 days notice; north leads sales.'))
  end

  def ask(chat, question, attachment)
    first = @recorder.requests.size
    answer = chat.ask(question, with: attachment).content
    asked = Ask.new(question:, attachment:, answer:, requests: @recorder.requests[first..])
    show(asked)
    asked
  end
end

Dir.mktmpdir('ruby_llm_file_store_demo') { |folder| ChatDemo.new(folder).run }
