# frozen_string_literal: true

RSpec.describe ScriptedLLMServer::PromptCache do
  let(:cache) { described_class.new }

  # A text block of +bytes+ bytes of JSON once wrapped (the wrapping is the same for every block).
  def block(text, bytes: 2_000, marked: false)
    { 'type' => 'text', 'text' => text.ljust(bytes, '.') }.tap do |part|
      part['cache_control'] = { 'type' => 'ephemeral' } if marked
    end
  end

  def anthropic(*contents, top_level: false)
    body = { 'model' => 'claude', 'messages' => contents.each_with_index.map do |content, index|
      { 'role' => index.even? ? 'user' : 'assistant', 'content' => Array(content) }
    end }
    top_level ? body.merge('cache_control' => { 'type' => 'ephemeral' }) : body
  end

  def tokens(body)
    described_class.tokens(cache.anthropic_blocks(body).first.join.bytesize)
  end

  describe 'Anthropic' do
    it 'caches nothing without a breakpoint' do
      body = anthropic([block('a', bytes: 8_000)])
      2.times { expect(cache.anthropic(body)).to include(cache_read_input_tokens: 0, cache_creation_input_tokens: 0) }
    end

    it 'writes the prefix up to the breakpoint, and reads it in the next request that starts with it' do
      first = anthropic([block('a', bytes: 8_000, marked: true)], [block('b', bytes: 400)])
      usage = cache.anthropic(first)
      written = tokens(anthropic([block('a', bytes: 8_000)]))
      expect(usage).to eq(cache_read_input_tokens: 0, cache_creation_input_tokens: written,
                          input_tokens: tokens(first) - written)

      second = anthropic([block('a', bytes: 8_000)], [block('b', bytes: 400)], [block('c', bytes: 400, marked: true)])
      usage = cache.anthropic(second)
      expect(usage[:cache_read_input_tokens]).to eq(written)
      expect(usage[:cache_creation_input_tokens]).to eq(tokens(second) - written)
      expect(usage[:input_tokens]).to eq(0)
    end

    it 'reads nothing when a block before the breakpoint changed, the marker itself not counting' do
      cache.anthropic(anthropic([block('a', bytes: 8_000, marked: true)]))
      expect(cache.anthropic(anthropic([block('a', bytes: 8_000)], [block('x', marked: true)])))
        .to include(cache_read_input_tokens: tokens(anthropic([block('a', bytes: 8_000)])))
      expect(cache.anthropic(anthropic([block('A', bytes: 8_000)], [block('x', marked: true)])))
        .to include(cache_read_input_tokens: 0)
    end

    it 'puts a top-level cache_control on the last block' do
      body = anthropic([block('a', bytes: 8_000)], [block('b')], top_level: true)
      expect(cache.anthropic(body)).to eq(cache_read_input_tokens: 0, cache_creation_input_tokens: tokens(body),
                                          input_tokens: 0)
      expect(cache.anthropic(body)).to include(cache_read_input_tokens: tokens(body), cache_creation_input_tokens: 0)
    end

    it 'writes no prefix under 1,024 tokens' do
      body = anthropic([block('a', bytes: 3_000, marked: true)])
      expect(tokens(body)).to be < 1024
      2.times { expect(cache.anthropic(body)).to include(cache_read_input_tokens: 0, cache_creation_input_tokens: 0) }
    end

    it 'looks back 20 blocks from a breakpoint for a cached prefix, and no further' do
      cache.anthropic(anthropic([block('a', bytes: 8_000, marked: true)]))
      start = [block('a', bytes: 8_000)]
      near = anthropic(start + (1..19).map { |n| block("n#{n}", bytes: 10) } + [block('end', bytes: 10, marked: true)])
      far = anthropic(start + (1..20).map { |n| block("n#{n}", bytes: 10) } + [block('end', bytes: 10, marked: true)])
      expect(cache.anthropic(far)).to include(cache_read_input_tokens: 0)
      expect(cache.anthropic(near)[:cache_read_input_tokens]).to be_positive
    end

    it 'refuses a fifth breakpoint, as Anthropic does' do
      body = anthropic((1..5).map { |n| block(n.to_s, marked: true) })
      expect { cache.anthropic(body) }.to raise_error(described_class::Refused, /maximum of 4 blocks/)
    end
  end

  describe 'OpenAI' do
    def chat(*texts)
      { 'model' => 'gpt', 'messages' => texts.map { |text| { 'role' => 'user', 'content' => text } } }
    end

    it 'reads the longest prefix an earlier request shares, in steps of 128 tokens from 1,024' do
      expect(cache.openai(chat('a' * 8_000))).to include(cached_tokens: 0)
      usage = cache.openai(chat('a' * 8_000, 'b' * 400))
      shared = described_class.tokens(cache.openai_blocks(chat('a' * 8_000)).join.bytesize)
      expect(usage[:cached_tokens]).to eq(1024 + ((shared - 1024) / 128 * 128))
      expect(usage[:cached_tokens]).to be <= shared
    end

    it 'reads nothing under 1,024 shared tokens, or after a change at the start' do
      cache.openai(chat('a' * 3_000))
      expect(cache.openai(chat('a' * 3_000, 'b'))).to include(cached_tokens: 0)
      cache.openai(chat('a' * 8_000))
      expect(cache.openai(chat("x#{'a' * 7_999}"))).to include(cached_tokens: 0)
    end
  end

  it 'counts the bytes two strings share' do
    expect(described_class.common_prefix('abcdef', 'abcxyz')).to eq(3)
    expect(described_class.common_prefix('', 'abc')).to eq(0)
    expect(described_class.common_prefix('abc', 'abc')).to eq(3)
  end
end
