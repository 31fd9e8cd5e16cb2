# frozen_string_literal: true

require 'json'
require 'net/http'
require 'uri'
require 'webrick'

# A forwarder on 127.0.0.1 between ruby_llm and a real provider: each request is
# recorded as the provider receives it (the body's bytes and its JSON) and sent on
# to +upstream+ (https://api.openai.com/v1), whose answer comes back unchanged.
# It keeps the same record as the demo's scripted server: +requests+.
#
#   proxy = RecordingProxy.start("https://api.openai.com/v1")
#   config.openai_api_base = proxy.base_url
class RecordingProxy
  FORWARDED = %w[authorization content-type openai-organization openai-project].freeze

  def self.start(upstream)
    new(upstream).start
  end

  def initialize(upstream)
    @upstream = URI(upstream.delete_suffix('/'))
    @requests = []
    @mutex = Mutex.new
  end

  def start
    @server = WEBrick::HTTPServer.new(BindAddress: '127.0.0.1', Port: 0, AccessLog: [],
                                      Logger: WEBrick::Log.new(File::NULL, WEBrick::BasicLog::FATAL))
    @server.mount_proc('/') { |request, response| forward(request, response) }
    @thread = Thread.new { @server.start }
    sleep 0.01 until @server.status == :Running
    self
  end

  def stop
    @server&.shutdown
    @thread&.join(5)
  end

  def base_url
    "http://127.0.0.1:#{@server.config[:Port]}/v1"
  end

  # [{ path:, body:, bytes: }, ...] in arrival order.
  def requests
    @mutex.synchronize { @requests.map(&:dup) }
  end

  private

  def forward(request, response)
    raw = request.body.to_s
    @mutex.synchronize { @requests << { path: request.path, body: parse(raw), bytes: raw.bytesize } }
    answer = send_on(request, raw)
    response.status = answer.code.to_i
    response['Content-Type'] = answer['content-type'] if answer['content-type']
    response.body = answer.body.to_s
  end

  def send_on(request, raw)
    uri = URI("#{@upstream}#{request.path.delete_prefix('/v1')}")
    outgoing = Net::HTTP::Post.new(uri)
    FORWARDED.each { |name| outgoing[name] = request[name] if request[name] }
    outgoing.body = raw
    Net::HTTP.start(uri.host, uri.port, use_ssl: uri.scheme == 'https', read_timeout: 300) do |http|
      http.request(outgoing)
    end
  end

  def parse(raw)
    JSON.parse(raw)
  rescue JSON::ParserError
    nil
  end
end
