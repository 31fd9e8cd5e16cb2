# frozen_string_literal: true

require 'json'
require 'logger'
require 'webrick'
require_relative 'scripted_llm_server/prompt_cache'
require_relative 'scripted_llm_server/seen'
require_relative 'scripted_llm_server/anthropic'
require_relative 'scripted_llm_server/streaming'

# A scripted OpenAI- and Anthropic-compatible server on 127.0.0.1 for specs that
# drive a real RubyLLM::Chat. It answers POST /v1/chat/completions (Chat
# Completions), POST /v1/responses (Responses API) and POST /v1/messages
# (Anthropic's Messages API) with JSON (or, for a streaming request to either OpenAI
# path, the same answer as server-sent events: Streaming), taking the replies in order
# from a script shared by all protocols, and records every request. Each answer's
# usage is what the provider's prompt cache would report for that request
# (PromptCache): OpenAI's cached_tokens, Anthropic's cache_read_input_tokens and
# cache_creation_input_tokens.
#
#   server = ScriptedLLMServer.start
#   server.script(ScriptedLLMServer.tool_call('search_files', { pattern: 'x' }),
#                 ScriptedLLMServer.text('done'))
#   chat = scripted_chat(server, protocol: :responses) # ScriptedLLMServer::Helpers
#   chat.with_tool(SearchFiles).ask('find x')
#   server.request_bodies # => [{ 'model' => ..., 'input' => [...] }, ...]
#   server.stop
#
# A scripted turn decides from what the request shows (Seen): it stays at the
# head of the script while it calls tools and is used up by its text answer.
#
#   server.script(ScriptedLLMServer.turn { |seen| seen.called?('list_files') ? text('ok') : tool_call('list_files') })
#
# A request past the end of the script, a streaming request to Anthropic or an unknown path
# gets an error status and an {"error":{"message":...}} body, so RubyLLM raises.
class ScriptedLLMServer
  # One scripted answer: :text (text), :tool_calls (calls: [[name, args], ...]),
  # :error (text is the message, status the HTTP status) or :turn (decide, a
  # block taking a Seen and returning one of the others).
  Reply = Struct.new(:kind, :text, :calls, :status, :decide, keyword_init: true)

  MODEL = 'gpt-4.1-mini'
  ANTHROPIC_MODEL = 'claude-sonnet-4-5'
  PATHS = { '/v1/chat/completions' => :chat_completions, '/v1/responses' => :responses, '/v1/ocr' => :ocr,
            '/v1/messages' => :anthropic }.freeze

  def self.start(**options)
    new(**options).start
  end

  # The replies a script is made of: ScriptedLLMServer.text, .tool_call, .tool_calls, .error.
  module Replies
    def text(answer)
      Reply.new(kind: :text, text: answer.to_s)
    end

    def tool_call(name, arguments = {})
      tool_calls([[name, arguments]])
    end

    def tool_calls(calls)
      raise ArgumentError, 'tool_calls needs at least one [name, arguments] pair' if calls.empty?

      Reply.new(kind: :tool_calls, calls: calls.map { |name, arguments| [name.to_s, arguments || {}] })
    end

    def error(message, status: 500)
      Reply.new(kind: :error, text: message, status:)
    end

    # A turn that answers each request with what +decide+ returns for it (a Seen);
    # the block runs with these reply builders in scope.
    def turn(&decide)
      raise ArgumentError, 'turn needs a block' unless decide

      Reply.new(kind: :turn, decide:)
    end
  end
  extend Replies

  attr_reader :port, :cache

  def initialize(request_timeout: 5)
    @request_timeout = request_timeout
    @mutex = Mutex.new
    @script = []
    @requests = []
    @ids = Hash.new(0)
    @cache = PromptCache.new
  end

  def start
    @server = WEBrick::HTTPServer.new(
      BindAddress: '127.0.0.1', Port: 0, Logger: WEBrick::Log.new(File::NULL, WEBrick::BasicLog::FATAL),
      AccessLog: [], DoNotReverseLookup: true, RequestTimeout: @request_timeout
    )
    @port = @server.config[:Port]
    @server.mount_proc('/') { |request, response| handle(request, response) }
    @thread = Thread.new { @server.start }
    wait_until_running
    self
  end

  def stop
    return unless @server

    @server.shutdown
    @thread.kill unless @thread.join(5)
    @server = nil
  end

  def base_url
    "http://127.0.0.1:#{port}/v1"
  end

  # Points a RubyLLM configuration (global or a context's) at this server, failing fast.
  def point(config)
    config.openai_api_key = 'test'
    config.openai_api_base = base_url
    config.anthropic_api_key = 'test'
    config.anthropic_api_base = "http://127.0.0.1:#{port}"
    config.max_retries = 0
    config.request_timeout = 10
  end

  # Queues replies; they are answered in order whatever the protocol.
  def script(*replies)
    replies = replies.flatten
    bad = replies.reject { |reply| reply.is_a?(Reply) }
    raise ArgumentError, "not a ScriptedLLMServer reply: #{bad.first.inspect}" unless bad.empty?

    @mutex.synchronize { @script.concat(replies) }
    self
  end

  def pending_replies
    @mutex.synchronize { @script.size }
  end

  # [{ path:, body: parsed JSON Hash, bytes: raw body size, usage: the usage answered }, ...]
  # in arrival order.
  def requests
    @mutex.synchronize { @requests.map(&:dup) }
  end

  def request_bodies
    requests.map { |request| request[:body] }
  end

  private

  # WEBrick ignores a shutdown that comes before its loop runs, so start waits.
  def wait_until_running
    deadline = Time.now + 5
    sleep 0.005 until @server.status == :Running || !@thread.alive? || Time.now > deadline
    return if @server.status == :Running

    stop
    raise "ScriptedLLMServer did not start on port #{port}"
  end

  def handle(request, response)
    raw = request.body.to_s
    body = parse_json(raw)
    number = @mutex.synchronize { @requests.push({ path: request.path, body:, bytes: raw.bytesize }).size }
    status, payload = answer(request, body, raw, number)
    @mutex.synchronize { @requests[number - 1][:usage] = payload[:usage] }
    response.status = status
    protocol = PATHS[request.path]
    if status == 200 && streamed?(protocol, body)
      response['Content-Type'] = 'text/event-stream'
      return response.body = events_of(protocol, payload)
    end
    response['Content-Type'] = 'application/json'
    response.body = JSON.generate(payload)
  end

  # What a request is answered: a refusal, or the scripted reply rendered.
  module Answering
    private

    def answer(request, body, raw, number)
      protocol = PATHS[request.path]
      refused = refusal(request, body, protocol)
      return refused if refused

      reply = next_reply(protocol, body)
      return failure(500, "the script ran out: no reply left for request ##{number} to #{request.path}") unless reply
      return failure(reply.status, reply.text) if reply.kind == :error

      [200, render(protocol, reply, body, raw.bytesize)]
    rescue PromptCache::Refused => e
      failure(400, e.message)
    end

    def refusal(request, body, protocol)
      return failure(404, "no route for #{request.request_method} #{request.path}") unless protocol
      unless request.request_method == 'POST'
        return failure(405, "#{request.request_method} #{request.path}: only POST")
      end
      return failure(400, 'request body is not a JSON object') unless body.is_a?(Hash)

      return unless body['stream'] == true && !streamed?(protocol, body)

      failure(400, "streaming is not supported on #{request.path}: call chat.ask without a block")
    end

    def failure(status, message)
      [status, { error: { message: "ScriptedLLMServer: #{message}", type: 'scripted_llm_server_error' } }]
    end
  end
  include Answering

  # The head of the script: a turn is decided on the request, and stays while it calls tools.
  module Turns
    # Numbers the tool calls from +first+ on, for a script whose calls one database
    # keeps beside another script's (ruby_llm 1.16's tool_calls.tool_call_id is unique).
    def number_calls_from(first)
      @mutex.synchronize { @ids[:call] = first - 1 }
      self
    end

    private

    def next_reply(protocol, body)
      reply = @mutex.synchronize { @script.first }
      return reply && @mutex.synchronize { @script.shift } unless reply&.kind == :turn

      decided = ReplyBuilder.new.instance_exec(Seen.new(protocol, body), &reply.decide)
      return ScriptedLLMServer.error("a turn returned #{decided.inspect}, not a reply") unless decided.is_a?(Reply)

      @mutex.synchronize { @script.shift } unless decided.kind == :tool_calls
      decided
    end

    # Where a turn's block runs: the reply builders, and nothing of the server.
    class ReplyBuilder
      include Replies
    end
  end
  include Turns

  def parse_json(raw)
    JSON.parse(raw)
  rescue JSON::ParserError
    nil
  end

  # Numbers ids per kind: tool calls are call_1, call_2, ... across the whole script.
  def next_id(kind = :object)
    @mutex.synchronize { @ids[kind] += 1 }
  end

  # Renders a scripted Reply in the shape of the request's protocol.
  module Rendering
    private

    def render(protocol, reply, body, request_bytes)
      output_tokens = [(reply.text || JSON.generate(reply.calls)).size / 4, 1].max
      case protocol
      when :chat_completions then chat_completion(reply, @cache.openai(body), output_tokens)
      when :anthropic then anthropic_message(reply, @cache.anthropic(body), output_tokens)
      when :ocr
        { model: 'mistral-ocr-latest', pages: [{ index: 0, markdown: reply.text, images: [] }],
          usage_info: { pages_processed: 1, doc_size_bytes: request_bytes } }
      else response_object(reply, @cache.openai(body), output_tokens)
      end
    end

    def chat_completion(reply, prompt, output_tokens)
      message = { role: 'assistant', content: reply.text }
      message[:tool_calls] = reply.calls.map { |name, args| chat_tool_call(name, args) } if reply.kind == :tool_calls
      {
        id: "chatcmpl-#{next_id}", object: 'chat.completion', created: Time.now.to_i, model: MODEL,
        choices: [{ index: 0, message:, finish_reason: reply.kind == :tool_calls ? 'tool_calls' : 'stop' }],
        usage: { prompt_tokens: prompt[:prompt_tokens], completion_tokens: output_tokens,
                 total_tokens: prompt[:prompt_tokens] + output_tokens,
                 prompt_tokens_details: { cached_tokens: prompt[:cached_tokens] } }
      }
    end

    def chat_tool_call(name, arguments)
      { id: "call_#{next_id(:call)}", type: 'function', function: { name:, arguments: JSON.generate(arguments) } }
    end

    def response_object(reply, prompt, output_tokens)
      output = reply.calls&.map { |name, args| function_call(name, args) } || [output_message(reply)]
      input_tokens = prompt[:prompt_tokens]
      {
        id: "resp_#{next_id}", object: 'response', created_at: Time.now.to_i, status: 'completed', model: MODEL,
        output:,
        usage: { input_tokens:, output_tokens:, total_tokens: input_tokens + output_tokens,
                 input_tokens_details: { cached_tokens: prompt[:cached_tokens] } }
      }
    end

    def output_message(reply)
      { type: 'message', id: "msg_#{next_id}", role: 'assistant', status: 'completed',
        content: [{ type: 'output_text', text: reply.text, annotations: [] }] }
    end

    def function_call(name, arguments)
      id = next_id(:call)
      { type: 'function_call', id: "fc_#{id}", call_id: "call_#{id}", name:,
        arguments: JSON.generate(arguments), status: 'completed' }
    end
  end
  include Rendering
  include AnthropicRendering
  include Streaming

  # RSpec helpers: include ScriptedLLMServer::Helpers in an example group.
  module Helpers
    ATTACHMENT_TYPES = %w[image_url input_image file input_file input_audio document image].freeze
    TEXT_TYPES = %w[text input_text output_text].freeze

    # The protocols the loaded ruby_llm speaks to OpenAI: main chooses between
    # Chat Completions and the Responses API; 1.16 has Chat Completions only.
    def self.protocols
      protocol = RubyLLM::Chat.instance_method(:initialize).parameters.any? { |_, name| name == :protocol }
      protocol ? %i[chat_completions responses] : %i[chat_completions]
    end

    # A real RubyLLM::Chat talking to server, configured in its own
    # RubyLLM.context (the global configuration is untouched), no retries.
    # provider: :anthropic speaks Anthropic's Messages API instead.
    def scripted_chat(server, protocol: :chat_completions, model: nil, provider: :openai)
      if provider == :anthropic
        return scripted_context(server).chat(model: model || ScriptedLLMServer::ANTHROPIC_MODEL, provider: :anthropic,
                                             assume_model_exists: true)
      end
      raise ArgumentError, "this ruby_llm has no #{protocol} protocol" unless Helpers.protocols.include?(protocol)

      options = Helpers.protocols.size > 1 ? { protocol: } : {}
      scripted_context(server).chat(model: model || ScriptedLLMServer::MODEL, provider: :openai,
                                    assume_model_exists: true, **options)
    end

    def scripted_context(server)
      RubyLLM.context { |config| server.point(config) }
    end

    # The text of a recorded message's content: a String, or an Array of parts
    # whose text parts (text / input_text / output_text) are joined by newlines.
    def text_of(content)
      case content
      when String then content
      when Hash then TEXT_TYPES.include?(content['type']) ? content['text'].to_s : ''
      when Array then content.map { |part| text_of(part) }.reject(&:empty?).join("\n")
      else content.to_s
      end
    end

    # What the tools returned, as a recorded request carries it: tool messages in
    # Chat Completions, function_call_output items in the Responses API,
    # tool_result blocks in Anthropic's Messages API.
    def tool_outputs(body)
      items = body['messages'] || body['input']
      blocks = items.flat_map { |item| Array(item['content']).grep(Hash) }
      items.filter_map { |item| tool_output(item) } +
        blocks.filter_map { |block| text_of(block['content']) if block['type'] == 'tool_result' }
    end

    def tool_output(item)
      return text_of(item['content']) if item['role'] == 'tool'

      text_of(item['output']) if item['type'] == 'function_call_output'
    end

    # Every attachment part (image_url, input_image, file, input_file,
    # input_audio) anywhere in a recorded request body, in order.
    def attachments_in(body)
      case body
      when Array then body.flat_map { |item| attachments_in(item) }
      when Hash
        own = ATTACHMENT_TYPES.include?(body['type']) ? [body] : []
        own + body.values.flat_map { |value| attachments_in(value) }
      else []
      end
    end
  end
end
