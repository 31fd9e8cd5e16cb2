# frozen_string_literal: true

require 'digest/sha2'
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
      if breakpoints.size > ANTHROPIC_BREAKPOINTS
        raise Refused, "A maximum of #{ANTHROPIC_BREAKPOINTS} blocks with cache_control may be provided. " \
                       "Found #{breakpoints.size}."
      end

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

    # The blocks of an Anthropic request, as Blocks.anthropic gives them.
    def anthropic_blocks(body)
      Blocks.anthropic(body)
    end

    # The prompt of a Chat Completions or Responses request, block by block.
    def openai_blocks(body)
      Blocks.openai(body)
    end

    private

    def anthropic_usage(ends, digests, breakpoints)
      read = breakpoints.map { |index| cached_end(ends, digests, index) }.max || 0
      cacheable = breakpoints.select { |index| self.class.tokens(ends[index]) >= ANTHROPIC_MINIMUM }
      cacheable.each { |index| @anthropic[digests[index]] = true }
      written = cacheable.empty? ? read : [ends[cacheable.last], read].max
      usage(ends.last || 0, read, written)
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
      ends = []
      digests = []
      blocks.each do |block|
        ends << (total += block.bytesize)
        digests << (digest = Digest::SHA256.digest(digest + block))
      end
      [ends, digests]
    end

    def openai_cached(shared_tokens)
      return 0 if shared_tokens < OPENAI_MINIMUM

      OPENAI_MINIMUM + ((shared_tokens - OPENAI_MINIMUM) / OPENAI_STEP * OPENAI_STEP)
    end
  end

  class PromptCache
    # A request cut into the blocks a provider's cache reads, in its order, each
    # block as its JSON with the cache markers taken out.
    module Blocks
      MARKERS = %w[cache_control prompt_cache_breakpoint].freeze

      module_function

      # [blocks, indexes of the blocks marked as breakpoints] of an Anthropic
      # request: tools, system, then each message's content blocks; a top-level
      # cache_control marks the last block.
      def anthropic(body)
        blocks = []
        marked = []
        anthropic_parts(body).each do |context, block|
          marked << blocks.size if block.is_a?(Hash) && block.key?('cache_control')
          blocks << JSON.generate([context, unmarked(block)])
        end
        marked << (blocks.size - 1) if body.key?('cache_control') && blocks.any?
        [blocks, marked.uniq.sort]
      end

      def anthropic_parts(body)
        system = body['system']
        system = [{ 'type' => 'text', 'text' => system }] if system.is_a?(String)
        Array(body['tools']).map { |tool| ['tool', tool] } + Array(system).map { |block| ['system', block] } +
          Array(body['messages']).flat_map do |message|
            content = message['content']
            content = [{ 'type' => 'text', 'text' => content }] if content.is_a?(String)
            Array(content).map { |block| [message['role'], block] }
          end
      end

      # The blocks of a Chat Completions or Responses request: tools, instructions, then each item.
      def openai(body)
        tools = Array(body['tools']).map { |tool| JSON.generate(['tool', unmarked(tool)]) }
        instructions = body['instructions'] ? [JSON.generate(['instructions', body['instructions']])] : []
        items = Array(body['messages'] || body['input']).map { |item| JSON.generate(['item', unmarked(item)]) }
        tools + instructions + items
      end

      def unmarked(value)
        case value
        when Hash then value.except(*MARKERS).transform_values { |item| unmarked(item) }
        when Array then value.map { |item| unmarked(item) }
        else value
        end
      end
    end
  end
end
