# frozen_string_literal: true

require 'net/http'

# People reading their chats: each client, a thread with a connection of its own,
# asks for one chat's files after another, pausing between them as a person does,
# until stopped, and keeps each request's times and response. The pause keeps the
# server well under what it can serve, so a request's time is the wait for the
# server's thread, not a queue of the clients' own making.
class ChatClients
  Request = Struct.new(:sent, :answered, :response) do
    def seconds = answered - sent
  end

  # GET +path+ on +http+, as a Request.
  def self.timed_get(http, path)
    sent = Stalls.now
    response = http.get(path)
    Request.new(sent, Stalls.now, response)
  end

  def initialize(port, chats, count:, pause:)
    @port = port
    @chats = chats
    @count = count
    @pause = pause
    @requests = Queue.new
    @stopping = false
  end

  # Starts the clients, each at its own place among the chats; returns self.
  def start
    @threads = Array.new(@count) { |n| Thread.new { ask(@chats.rotate(n * @chats.size / @count)) } }
    self
  end

  # Waits until +count+ requests have been answered in all: the clients' connections
  # made and the app's first requests served. Returns self.
  def warm(count)
    sleep 0.01 until @requests.size >= count
    self
  end

  # Stops the clients once their requests in flight are answered; returns every
  # request.
  def stop
    @stopping = true
    @threads.each(&:join)
    Array.new(@requests.size) { @requests.pop }
  end

  private

  def ask(chats)
    Net::HTTP.start('127.0.0.1', @port, read_timeout: 60) do |http|
      chats.cycle do |chat|
        break if @stopping

        @requests << self.class.timed_get(http, "/chats/#{chat.id}/files")
        sleep @pause
      end
    end
  end
end
