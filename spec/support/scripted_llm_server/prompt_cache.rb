# frozen_string_literal: true

require 'digest'
require 'json'

class ScriptedLLMServer
  # What each provider's prompt cache would serve for a request, computed from the
  # exact bytes of the requests before it. A request is cut into blocks in the
  # order the provider reads them (tools, then system, then messages, each content
  # block on its own), every block as its JSON with the cache markers taken out:
  # a marker says where to cache, it is not part of what is cached.
  #
  # Tokens are bytes / 4: no tokenizer is at hand offline, and both providers
  # count text at about four bytes a token (a PDF Anthropic bills by its pages,
  # which this does not model).
  #
  # - Anthropic caches only at breakpoints (a block's +cache_control+, or a
  #   top-level +cache_control+, which puts one on the last block): for each, the
  #   longest cached prefix ending at it or at one of the 20 block boundaries
  #   before it is read; the prefix up to the last breakpoint is then written
  #   (when it is at least 1,024 tokens); the rest is plain input. At most 4
  #   breakpoints, or the request is refused, as Anthropic does.
  # - OpenAI caches every request's prompt automatically: the longest prefix it
  #   shares with an earlier request is read, in steps of 128 tokens from 1,024.
  class PromptCache
    TOKEN_BYTES = 4
    ANTHROPIC_MINIMUM = 1024
    ANTHROPIC_LOOKBACK = 20
    ANTHROPIC_BREAKPOINTS = 4
    OPENAI_MINIMUM = 1024
    OPENAI_STEP = 128
    MARKERS = %w[cache_control prompt_cache_breakpoint].freeze

    # A refused request: the message Anthropic would send.
    class Refused < StandardError; end

    def self.tokens(bytes)
      (bytes + TOKEN_BYTES - 1) / TOKEN_BYTES
    end

    def initialize
      @mutex = Mutex.new
      @anthropic = {}
      @openai = []
    end

    # { input_tokens:, cache_read_input_tokens:, cache_creation_input_tokens: } for
    # an Anthropic Messages request body.
    def anthropic(body)
      blocks, breakpoints = anthropic_blocks(body)
      raise Refused, "A maximum of #{ANTHROPIC_BREAKPOINTS} blocks with cache_control may be provided. " \
                     "Found #{breakpoints.size}." if breakpoints.size > ANTHROPIC_BREAKPOINTS

      ends, digests = boundaries(blocks)
      @mutex.synchronize { anthropic_usage(ends, digests, breakpoints) }
    end

    # { prompt_tokens:, cached_tokens: } for a Chat Completions or Responses body.
    def openai(body)
      prompt = openai_blocks(body).join
      @mutex.synchronize do
        shared = @openai.map { |earlier| self.class.common_prefix(earlier, prompt) }.max || 0
        @openai << prompt
        { prompt_tokens: self.class.tokens(prompt.bytesize), cached_tokens: openai_cached(self.class.tokens(shared)) }
      end
    end

    # How many leading bytes +a+ and +b+ share.
    def self.common_prefix(first, second)
      low = 0
      high = [first.bytesize, second.bytesize].min
      while low < high
        mid = (low + high + 1) / 2
        first.byteslice(0, mid) == second.byteslice(0, mid) ? low = mid : high = mid - 1
      end
      low
    end

    # The blocks of a request in the order the provider reads them, as JSON
    # strings, and the indexes of those marked as Anthropic breakpoints.
    def anthropic_blocks(body)
      blocks = []
      marked = []
      add = lambda do |block, context|
        marked << blocks.size if block.is_a?(Hash) && block.key?('cache_control')
        blocks << JSON.generate([context, unmarked(block)])
      end
      Array(body['tools']).each { |tool| add.call(tool, 'tool') }
      system = body['system']
      (system.is_a?(String) ? [{ 'type' => 'text', 'text' => system }] : Array(system)).each { |b| add.call(b, 'system') }
      Array(body['messages']).each do |message|
        content = message['content']
        content = [{ 'type' => 'text', 'text' => content }] if content.is_a?(String)
        Array(content).each { |block| add.call(block, message['role']) }
      end
      marked << (blocks.size - 1) if body.key?('cache_control') && blocks.any?
      [blocks, marked.uniq.sort]
    end

    # The prompt of a Chat Completions or Responses request, block by block.
    def openai_blocks(body)
      tools = Array(body['tools']).map { |tool| JSON.generate(['tool', unmarked(tool)]) }
      instructions = body['instructions'] ? [JSON.generate(['instructions', body['instructions']])] : []
      items = Array(body['messages'] || body['input']).map { |item| JSON.generate(['item', unmarked(item)]) }
      tools + instructions + items
    end

    private

    def anthropic_usage(ends, digests, breakpoints)
      total = ends.last || 0
      read = breakpoints.map { |index| cached_end(ends, digests, index) }.max || 0
      written = breakpoints.empty? ? read : [ends[breakpoints.last], read].max
      if self.class.tokens(written) >= ANTHROPIC_MINIMUM
        breakpoints.each { |index| @anthropic[digests[index]] = true if self.class.tokens(ends[index]) >= ANTHROPIC_MINIMUM }
      else
        written = read
      end
      usage(total, read, written)
    end

    def usage(total, read, written)
      read_tokens = self.class.tokens(read)
      creation = self.class.tokens(written) - read_tokens
      { input_tokens: self.class.tokens(total) - read_tokens - creation, cache_read_input_tokens: read_tokens,
        cache_creation_input_tokens: creation }
    end

    # The end, in bytes, of the longest cached prefix a breakpoint at +index+ finds.
    def cached_end(ends, digests, index)
      index.downto([index - ANTHROPIC_LOOKBACK, 0].max) do |candidate|
        return ends[candidate] if @anthropic[digests[candidate]]
      end
      0
    end

    # The byte offset where each block ends, and a digest of the prefix up to it.
    def boundaries(blocks)
      total = 0
      digest = ''
      blocks.map do |block|
        total += block.bytesize
        digest = Digest::SHA256.digest(digest + block)
        [total, digest]
      end.transpose.then { |pair| pair.empty? ? [[], []] : pair }
    end

    def openai_cached(shared_tokens)
      return 0 if shared_tokens < OPENAI_MINIMUM

      OPENAI_MINIMUM + ((shared_tokens - OPENAI_MINIMUM) / OPENAI_STEP * OPENAI_STEP)
    end

    def unmarked(value)
      case value
      when Hash then value.reject { |key, _| MARKERS.include?(key) }.transform_values { |item| unmarked(item) }
      when Array then value.map { |item| unmarked(item) }
      else value
      end
    end
  end
end
