# frozen_string_literal: true

# The same scripted 10-question conversation in five configurations (no store, no
# store with caching, a store, a store with caching, a store with
# attachments: :lines and caching), against Anthropic's and OpenAI's APIs as a
# scripted server plays them: a 40-page PDF attached to question 1, a
# 30,000-character tool result in question 3, a 3-page letter attached to
# question 6, and questions answered from passages the model searches and reads.
# Prints, per request, the bytes sent, the bytes that are an exact prefix of the
# previous request, the usage the provider reports (read back from the chat's
# messages, as an application sees it) and its price, and then the totals.
#
#   ruby bench/conversation.rb                       # every ../shared/gems/ruby_llm-* set, one after another
#   RUBY_LLM_PATH=/path/to/ruby_llm ruby bench/conversation.rb
#   INSTRUCTIONS=20000 ruby bench/conversation.rb    # and instructions of 20,000 bytes
#
# Prices are in input-token units (an uncached token costs 1): Anthropic reads at
# 0.1 and writes at 1.25; OpenAI's cached input at 0.5 (gpt-4o) or 0.1 (gpt-5).
# Tokens are bytes / 4 (no tokenizer is at hand offline).

require 'json'
require 'rbconfig'

unless ENV['RUBY_LLM_PATH']
  sets = Dir[File.expand_path('../../shared/gems/ruby_llm-*', __dir__)]
  abort 'Set RUBY_LLM_PATH to a folder of ruby_llm and its dependencies, one lib/ each' if sets.empty?
  results = sets.map do |set|
    output = IO.popen(ENV.to_h.merge('RUBY_LLM_PATH' => set, 'CONVERSATION_JSON' => '1'), [RbConfig.ruby, __FILE__],
                      &:read)
    abort "bench/conversation.rb failed on #{set}" unless $?.success? # rubocop:disable Style/SpecialGlobalVars
    JSON.parse(output)
  end
  require_relative 'support/conversation_report'
  ConversationReport.new(results).print
  exit
end

ENV.fetch('RUBY_LLM_PATH').split(':').each do |set|
  Dir[File.join(set, '*', 'lib')].each { |lib| $LOAD_PATH.unshift(lib) }
end
$LOAD_PATH.unshift(File.expand_path('../lib', __dir__))
require 'ruby_llm'
require 'ruby_llm/file_store'
require 'tmpdir'
require_relative '../spec/support/scripted_llm_server'
require_relative 'support/conversation_fixtures'
require_relative 'support/conversation_report'

# Runs the conversation in one configuration, against a server of its own (its
# cache and its tool call ids start afresh), and returns what each request sent
# and what its answer reported.
class Conversation
  CONFIGURATIONS = {
    'no store' => {}, 'no store + caching' => { caching: true },
    'store' => { store: true }, 'store + caching' => { store: true, caching: true },
    'lines + caching' => { store: true, caching: true, attachments: :lines }
  }.freeze
  PROVIDERS = %i[anthropic openai].freeze

  def initialize(documents)
    @documents = documents
  end

  def run(provider, store: false, caching: false, attachments: :full)
    @server = ScriptedLLMServer.start
    converse(provider, store && attachments, caching)
  ensure
    @server.stop
  end

  private

  def converse(provider, attachments, caching)
    chat = chat_for(provider, attachments)
    cache(chat, provider) if caching
    @server.script(*ConversationFixtures::QUESTIONS.each_with_index.map { |q, i| ConversationFixtures.turn(i + 1, q) })
    answers = ConversationFixtures::QUESTIONS.map { |question| [chat.messages.size, ask(chat, question)] }
    { 'requests' => requests(@server.requests, chat, answers.map(&:first)), 'answers' => answers.map(&:last) }
  end

  def ask(chat, question)
    chat.ask(question[:ask], with: question[:with] && @documents[question[:with]]).content
  end

  # A chat on the server with the sales tool, the instructions asked for, and a
  # store whose attachments go as +attachments+ says (none when false).
  def chat_for(provider, attachments)
    context = RubyLLM.context do |config|
      @server.point(config)
      config.file_converters['application/pdf'] = RubyLLM.file_store.converter.pdf
    end
    model = provider == :anthropic ? ScriptedLLMServer::ANTHROPIC_MODEL : ScriptedLLMServer::MODEL
    chat = context.chat(model:, provider:, assume_model_exists: true).with_tools(ConversationFixtures::SalesReport)
    chat.with_instructions(ConversationFixtures.instructions(ENV['INSTRUCTIONS'].to_i)) if ENV['INSTRUCTIONS']
    attachments ? chat.with_file_store(RubyLLM.file_store.memory, attachments:) : chat
  end

  # Caching as each ruby_llm turns it on: with_caching on main; on 1.16.0,
  # Anthropic's top-level cache_control through with_params (OpenAI caches
  # without being asked on both).
  def cache(chat, provider)
    return chat.with_caching if chat.respond_to?(:with_caching)

    chat.with_params(cache_control: { type: 'ephemeral' }) if provider == :anthropic
  end

  # Per request: its bytes, its prompt as the provider reads it, the usage the
  # chat's message reports, and which question it belongs to.
  def requests(recorded, chat, starts)
    replies = chat.messages.select { |message| message.role == :assistant }
    previous = ''
    recorded.zip(replies).map do |request, reply|
      prompt = prompt(request)
      shared = ScriptedLLMServer::PromptCache.common_prefix(previous, prompt)
      row = { 'bytes' => request[:bytes], 'prompt' => prompt.bytesize, 'shared' => shared,
              'previous' => previous.bytesize, 'usage' => usage(reply), 'question' => question_of(chat, reply, starts) }
      previous = prompt
      row
    end
  end

  def prompt(request)
    blocks = ScriptedLLMServer::PromptCache::Blocks
    (request[:path] == '/v1/messages' ? blocks.anthropic(request[:body]).first : blocks.openai(request[:body])).join
  end

  def question_of(chat, reply, starts)
    position = chat.messages.index { |message| message.equal?(reply) }
    starts.rindex { |start| start < position } + 1
  end

  # What an application reads off the message: 1.16.0's input_tokens,
  # cached_tokens and cache_creation_tokens, main's tokens.input, .cache_read and
  # .cache_write.
  def usage(message)
    if message.respond_to?(:cached_tokens)
      { 'input' => message.input_tokens.to_i, 'read' => message.cached_tokens.to_i,
        'write' => message.cache_creation_tokens.to_i }
    else
      tokens = message.tokens
      { 'input' => tokens.input.to_i, 'read' => tokens.cache_read.to_i, 'write' => tokens.cache_write.to_i }
    end
  end
end

Dir.mktmpdir('conversation_bench') do |dir|
  documents = ConversationFixtures.documents(dir)
  conversation = Conversation.new(documents)
  runs = Conversation::PROVIDERS.to_h do |provider|
    [provider, Conversation::CONFIGURATIONS.transform_values { |options| conversation.run(provider, **options) }]
  end
  set = File.basename(ENV.fetch('RUBY_LLM_PATH').split(':').first)
  result = { 'instructions' => ENV['INSTRUCTIONS'].to_i, 'ruby_llm' => "#{RubyLLM::VERSION} (#{set})",
             'documents' => documents.transform_values { |path| File.size(path) }, 'runs' => runs }
  if ENV['CONVERSATION_JSON']
    puts JSON.generate(result)
  else
    ConversationReport.new([JSON.parse(JSON.generate(result))]).print
  end
end
