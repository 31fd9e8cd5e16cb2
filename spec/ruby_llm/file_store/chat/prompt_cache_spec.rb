# frozen_string_literal: true

require 'json'

RSpec.describe 'A chat with files and the provider prompt cache', :ruby_llm do
  include TmpDirHelper
  include ScriptedLLMServer::Helpers

  let(:server) { ScriptedLLMServer.start }
  let(:cache) { ScriptedLLMServer::PromptCache }
  let(:instructions) { 'Answer from the documents and quote the line you rely on. ' * 100 }

  before { require_relative '../../../../bench/support/conversation_fixtures' }
  after { server.stop }

  # A chat on the scripted server whose PDFs the store reads with the pdf converter.
  def chat_on(server, provider)
    context = RubyLLM.context do |config|
      server.point(config)
      config.file_converters['application/pdf'] = RubyLLM.file_store.converter.pdf
    end
    model = provider == :anthropic ? ScriptedLLMServer::ANTHROPIC_MODEL : ScriptedLLMServer::MODEL
    context.chat(model:, provider:, assume_model_exists: true).with_instructions(instructions)
  end

  # Caching as each ruby_llm asks for it: with_caching on main, Anthropic's
  # top-level cache_control through with_params on 1.16.0.
  def with_caching(chat)
    chat.respond_to?(:with_caching) ? chat.with_caching : chat.with_params(cache_control: { type: 'ephemeral' })
  end

  # What the application reads off a message: 1.16.0's cached_tokens and
  # cache_creation_tokens, main's tokens.cache_read and tokens.cache_write.
  def reported(message)
    if message.respond_to?(:cached_tokens)
      { input: message.input_tokens, read: message.cached_tokens.to_i, write: message.cache_creation_tokens.to_i }
    else
      { input: message.tokens.input, read: message.tokens.cache_read.to_i, write: message.tokens.cache_write.to_i }
    end
  end

  def documents
    @documents ||= ConversationFixtures.documents(tmp_dir)
  end

  # Four questions: the report attached (answered from it), a passage found with
  # search_files and read_file, the letter attached, and a plain question.
  conversation = [
    { ask: 'What does the attached report say about the travel budget?', with: :report,
      pattern: 'Travel budget, see', after: 1 },
    { ask: 'What does chapter 12 say about hiring?', pattern: 'Hiring plan, see', after: 1 },
    { ask: "Here is the auditor's letter: what does it conclude?", with: :letter, pattern: 'Conclusion, see', after: 1 },
    { ask: 'Draft a one-line summary' }
  ].freeze
  let(:questions) { conversation }

  def converse(chat, questions = self.questions)
    server.script(*questions.each_with_index.map { |question, index| ConversationFixtures.turn(index + 1, question) })
    questions.map { |question| chat.ask(question[:ask], with: question[:with] && documents[question[:with]]).content }
  end

  def anthropic_blocks(body)
    cache.new.anthropic_blocks(body)
  end

  # The request's blocks as Anthropic reads them, each with the message it is in.
  def blocks_with_messages(body)
    tools = Array(body['tools']).size + Array(body['system']).size
    owners = Array.new(tools)
    body['messages'].each { |message| Array(message['content']).size.times { owners << message } }
    anthropic_blocks(body).first.zip(owners)
  end

  def read_call_ids(body)
    body['messages'].flat_map { |message| Array(message['content']) }
                    .select { |block| block['type'] == 'tool_use' && block['name'] == 'read_file' }.map { |b| b['id'] }
  end

  # Whether +message+ is one the seed's rules change at the next question: a
  # question with a document in full, or a read_file result since the latest question.
  def changing?(message, body)
    blocks = Array(message['content'])
    return true if blocks.any? { |block| block['type'] == 'document' }

    latest = body['messages'].rindex { |item| question_message?(item) }
    body['messages'].index(message) > latest &&
      blocks.any? { |block| block['type'] == 'tool_result' && read_call_ids(body).include?(block['tool_use_id']) }
  end

  def question_message?(message)
    message['role'] == 'user' && message['content'].none? { |block| block['type'] == 'tool_result' }
  end

  def question?(body)
    question_message?(body['messages'].last)
  end

  # [prompt tokens, cached tokens] an OpenAI answer reported, over either protocol.
  def openai_usage(request)
    usage = request[:usage]
    return [usage[:prompt_tokens], usage.dig(:prompt_tokens_details, :cached_tokens)] if usage.key?(:prompt_tokens)

    [usage[:input_tokens], usage.dig(:input_tokens_details, :cached_tokens)]
  end

  context 'with Anthropic' do
    let(:chat) { with_caching(chat_on(server, :anthropic).with_file_store) }

    it 'keeps every request a prefix of the next, except the messages a question turns into lines, there and then' do
      converse(chat)
      bodies = server.request_bodies
      expect(bodies.size).to eq(6) # q1; q2: search, read, answer; q3; q4
      bodies.each_cons(2) do |previous, current|
        before, after = [previous, current].map { |body| anthropic_blocks(body).first }
        first_change = before.each_index.find { |index| before[index] != after[index] }
        next if first_change.nil?

        message = blocks_with_messages(previous)[first_change].last
        expect(question?(current)).to be(true), 'a request inside a question changed what an earlier one sent'
        expect(changing?(message, previous)).to be(true), "block #{first_change} changed: #{before[first_change][0, 120]}"
      end
      changes = bodies.each_cons(2).count do |previous, current|
        anthropic_blocks(previous).first != anthropic_blocks(current).first.first(anthropic_blocks(previous).first.size)
      end
      expect(changes).to eq(3) # the report at q2, the read at q3, the letter at q4
    end

    it 'sends the tools and the store lines in one order, and the same bytes for the same conversation' do
      converse(chat)
      other = ScriptedLLMServer.start
      begin
        twin = with_caching(chat_on(other, :anthropic).with_file_store)
        other.script(*questions.each_with_index.map { |question, index| ConversationFixtures.turn(index + 1, question) })
        questions.each { |question| twin.ask(question[:ask], with: question[:with] && documents[question[:with]]) }
        expect(other.requests.map { |request| request[:bytes] }).to eq(server.requests.map { |request| request[:bytes] })
        expect(other.request_bodies).to eq(server.request_bodies)
      ensure
        other.stop
      end
      expect(server.request_bodies.map { |body| body['tools'] }.uniq.size).to eq(1)
    end

    it 'marks the last message the next request keeps, so attachments and reads are never written at a premium' do
      converse(chat)
      server.request_bodies.each do |body|
        expect(body).not_to have_key('cache_control')
        blocks = blocks_with_messages(body)
        marked = anthropic_blocks(body).last
        changing = blocks.index { |_, message| message && changing?(message, body) }
        stable = (changing || blocks.size) - 1
        expect(marked).to eq(stable.negative? ? [] : [stable])
      end
      first = server.requests.first
      blocks, marked = anthropic_blocks(first[:body])
      # The tools and the instructions are written; the report, base64 in the question after them, is not.
      expect(first[:usage]).to include(cache_creation_input_tokens: cache.tokens(blocks[0..marked.first].join.bytesize))
      expect(first[:usage][:input_tokens]).to be > cache.tokens(File.size(documents[:report]))
      written = server.requests.sum { |request| request[:usage][:cache_creation_input_tokens] }
      expect(written).to be < cache.tokens(File.size(documents[:report])) / 5
    end

    it 'reads the cache in every request after the first, and the chat reports what the provider did' do
      answers = converse(chat)
      expect(answers).to eq(['Answer 1: Each office may spend 2,000 EUR a person a year on travel.',
                             'Answer 2: Hiring is frozen until the third quarter, except for support.',
                             'Answer 3: The accounts give a true and fair view; no material misstatement was found.',
                             'Answer 4.'])
      usages = server.requests.map { |request| request[:usage] }
      expect(usages.drop(1).map { |usage| usage[:cache_read_input_tokens] }).to all(be_positive)
      replies = chat.messages.select { |message| message.role == :assistant }
      expect(replies.map { |reply| reported(reply) }).to eq(usages.map do |usage|
        { input: usage[:input_tokens], read: usage[:cache_read_input_tokens], write: usage[:cache_creation_input_tokens] }
      end)
    end

    it 'leaves the chat asking for the cache as it did, and the messages unmarked' do
      converse(chat, questions.first(2))
      if chat.respond_to?(:with_caching)
        expect(chat.caching).to eq({})
        expect(chat.messages.map(&:cache_until_here?)).to all(be(false))
      else
        expect(chat.params).to eq(cache_control: { type: 'ephemeral' })
        expect(chat.messages.map(&:content)).to all(satisfy { |content| !content.is_a?(RubyLLM::Content::Raw) })
      end
    end

    if defined?(RubyLLM::Chat) && RubyLLM::Chat.method_defined?(:cache_until_here!)
      it "keeps the chat's own cache_until_here! marks beside its own" do
        chat.cache_until_here! # the instructions
        converse(chat, questions.first(2))
        marks = server.request_bodies.map { |body| anthropic_blocks(body).last }
        system = Array(server.request_bodies.first['tools']).size
        expect(marks.first).to eq([system])
        expect(marks.drop(1)).to all(satisfy { |marked| marked.size == 2 && marked.first == system })
      end
    end

    it 'caches the whole request without a store, where ruby_llm puts the breakpoint' do
      plain = with_caching(chat_on(server, :anthropic))
      converse(plain, questions.first(2))
      first, second = server.requests
      expect(first[:body]).to have_key('cache_control')
      expect(first[:usage][:cache_creation_input_tokens]).to be > cache.tokens(File.size(documents[:report]))
      expect(second[:usage][:cache_read_input_tokens]).to eq(first[:usage][:cache_creation_input_tokens])
    end
  end

  context 'with OpenAI' do
    let(:chat) { chat_on(server, :openai).with_file_store }

    it 'adds no breakpoint, and the chat reports the cached prefix from the second request' do
      with_caching(chat) if chat.respond_to?(:with_caching)
      converse(chat)
      bodies = server.request_bodies
      expect(JSON.generate(bodies)).not_to include('prompt_cache_breakpoint', 'prompt_cache_options')
      usages = server.requests.map { |request| openai_usage(request) }
      expect(usages.drop(1).map(&:last)).to all(be >= 1024)
      replies = chat.messages.select { |message| message.role == :assistant }
      expect(replies.map { |reply| reported(reply)[:read] }).to eq(usages.map(&:last))
      expect(replies.map { |reply| reported(reply)[:input] }).to eq(usages.map { |prompt, cached| prompt - cached })
    end

    if ScriptedLLMServer::Helpers.protocols.include?(:responses)
      it 'reports cached tokens over the Responses API too' do
        responses = RubyLLM.context { |config| server.point(config) }
                           .chat(model: ScriptedLLMServer::MODEL, provider: :openai, assume_model_exists: true,
                                 protocol: :responses).with_instructions(instructions)
        server.script(ScriptedLLMServer.text('one'), ScriptedLLMServer.text('two'))
        responses.ask('first')
        reply = responses.ask('second')
        cached = server.requests.last[:usage].dig(:input_tokens_details, :cached_tokens)
        expect(cached).to be >= 1024
        expect(reported(reply)[:read]).to eq(cached)
      end
    end
  end

  describe 'attachments: :lines' do
    it 'never sends an attachment in full, and the model finds the same passages by reading' do
      chat = chat_on(server, :anthropic).with_file_store(attachments: :lines)
      answers = converse(chat)
      expect(answers.first(3)).to eq(['Answer 1: Each office may spend 2,000 EUR a person a year on travel.',
                                      'Answer 2: Hiring is frozen until the third quarter, except for support.',
                                      'Answer 3: The accounts give a true and fair view; no material misstatement ' \
                                      'was found.'])
      bodies = server.request_bodies
      expect(bodies.flat_map { |body| attachments_in(body) }).to be_empty
      size = File.size(documents[:report])
      expect(text_of(bodies.first['messages'].first['content']))
        .to include("annual-report.pdf (application/pdf, #{chat.file_store['annual-report.pdf'].human_size}) " \
                    "is in this chat's files")
      expect(bodies.first(3).map { |body| body['messages'].last['content'].map { |block| block['type'] } })
        .to eq([['text'], ['tool_result'], ['tool_result']])
      expect(server.requests.first[:bytes]).to be < size / 10
    end

    it "is an agent's file_store option too" do
      llm = RubyLLM.context { |config| server.point(config) }
      agent = Class.new(RubyLLM::Agent) do
        context llm
        file_store attachments: :lines
      end
      chat = agent.chat(model: ScriptedLLMServer::MODEL, provider: :openai, assume_model_exists: true, context: llm)
      server.script(ScriptedLLMServer.text('ok'))
      chat.ask('Read it when you need it', with: documents[:letter])
      expect(attachments_in(server.request_bodies.first)).to be_empty
      expect(JSON.generate(server.request_bodies.first)).to include('auditor-letter.pdf (application/pdf, ')
    end

    it 'refuses another mode, naming it' do
      chat = chat_on(server, :openai)
      expect { chat.with_file_store(attachments: :summary) }
        .to raise_error(ArgumentError, 'attachments takes :full or :lines, not :summary')
      expect(chat.file_store).to be_nil
    end
  end
end
