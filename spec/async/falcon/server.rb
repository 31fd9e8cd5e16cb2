# frozen_string_literal: true

require 'async'
require 'async/http/endpoint'
require 'falcon'
require 'socket'

# Falcon serving a Rack app in this process, on one reactor thread, as one Falcon
# worker serves every request it takes.
module FalconServer
  module_function

  # Serves +app+ through Falcon's Rack adapter on a free port of 127.0.0.1 until the
  # block returns; yields the port.
  def serving(app)
    port = FreePort.find
    endpoint = Async::HTTP::Endpoint.parse("http://127.0.0.1:#{port}")
    thread = Thread.new do
      Sync { Falcon::Server.new(Falcon::Server.middleware(app, cache: false), endpoint).run.wait }
    end
    until listening?(port)
      next unless thread.join(0.05)

      thread.value # raises what ended it
      raise 'Falcon ended before it listened'
    end
    yield port
  ensure
    thread&.kill&.join
  end

  def listening?(port)
    TCPSocket.new('127.0.0.1', port).close
    true
  rescue Errno::ECONNREFUSED
    false
  end
end
