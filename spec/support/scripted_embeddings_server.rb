# frozen_string_literal: true

require 'json'
require 'logger'
require 'webrick'

# An OpenAI-compatible embeddings endpoint on 127.0.0.1 (POST /v1/embeddings) for
# specs that drive the real RubyLLM.embed. A text's vector counts its words in each
# of a few made-up meanings (CONCEPTS), plus a small constant, so texts that share a
# meaning and no word are near, as a model's embeddings would make them. It records
# every input it embeds, and fails the next requests it is told to.
#
#   server = ScriptedEmbeddingsServer.start
#   server.point(RubyLLM.config)
#   RubyLLM.embed(['abort the statement'], model: 'text-embedding-3-small').vectors
#   server.inputs # => [['abort the statement']]
#   server.stop
class ScriptedEmbeddingsServer
  CONCEPTS = [
    %w[abort timeout stop give long slow time too runs cancel],
    %w[lunch noon food meal eat],
    %w[server port listen starts],
    %w[query rows returns select],
    %w[weather rain sun]
  ].freeze

  def self.start
    new.start
  end

  def self.vector(text)
    words = text.downcase.scan(/[a-z]+/)
    CONCEPTS.map { |concept| words.count { |word| concept.include?(word) } + 0.01 } + [0.01 * ((text.size % 7) + 1)]
  end

  def initialize
    @inputs = []
    @failures = 0
    @mutex = Mutex.new
  end

  def start
    @server = WEBrick::HTTPServer.new(BindAddress: '127.0.0.1', Port: 0, Logger: WEBrick::Log.new(File::NULL),
                                      AccessLog: [])
    @server.mount_proc('/v1/embeddings') { |request, response| answer(request, response) }
    @thread = Thread.new { @server.start }
    # As ScriptedLLMServer waits: a server whose thread died, or that never runs, is an error.
    deadline = Time.now + 5
    sleep 0.005 until @server.status == :Running || !@thread.alive? || Time.now > deadline
    raise "ScriptedEmbeddingsServer did not start: #{@server.status}" unless @server.status == :Running

    self
  end

  def stop
    @server&.shutdown
    @thread&.join(5)
  end

  def point(config)
    config.openai_api_key = 'test'
    config.openai_api_base = "http://127.0.0.1:#{@server.config[:Port]}/v1"
    config.max_retries = 0
    config.request_timeout = 10
  end

  # The inputs of every request answered, each an Array of texts.
  def inputs
    @mutex.synchronize { @inputs.map(&:dup) }
  end

  # Every text embedded, in order.
  def texts
    inputs.flatten
  end

  # Answers the next +count+ requests with an error.
  def fail_next(count)
    @mutex.synchronize { @failures = count }
  end

  private

  def answer(request, response)
    texts = Array(JSON.parse(request.body)['input'])
    response['Content-Type'] = 'application/json'
    failing = @mutex.synchronize { (@failures -= 1) >= 0 }
    return refuse(response) if failing

    @mutex.synchronize { @inputs << texts }
    data = texts.each_with_index.map { |text, index| { object: 'embedding', index:, embedding: self.class.vector(text) } }
    response.body = JSON.generate(object: 'list', data:, model: 'text-embedding-3-small',
                                  usage: { prompt_tokens: texts.sum(&:size) / 4, total_tokens: texts.sum(&:size) / 4 })
  end

  def refuse(response)
    response.status = 503
    response.body = JSON.generate(error: { message: 'ScriptedEmbeddingsServer: the service is overloaded',
                                           type: 'server_error' })
  end
end
