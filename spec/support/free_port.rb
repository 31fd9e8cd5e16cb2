# frozen_string_literal: true

require 'socket'

# A port of 127.0.0.1 that nothing listens on, for a server a spec starts (bin/rails
# server, Falcon): the kernel picks it, and it is given back for the server to take.
module FreePort
  def self.find
    server = TCPServer.new('127.0.0.1', 0)
    server.addr[1]
  ensure
    server&.close
  end
end
