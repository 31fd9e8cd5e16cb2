# frozen_string_literal: true

require 'net/http'
require_relative '../../bench/support/stalls'
require_relative 'falcon/application'
require_relative 'falcon/clients'
require_relative 'falcon/server'

# A Rails 8.1 application (falcon/application.rb) over ruby_llm's acts_as_chat records
# and this gem, served by Falcon in this process on one reactor thread, as one Falcon
# worker serves every request: of 50 chats, while one chat's request converts a PDF
# of about 1.5 s and another's runs code for 5 s, 10 clients keep reading the other
# 48 chats' files, and each of their requests is answered within a bound far below
# the slow work's seconds. With the slow work kept on the reactor's thread, their
# requests wait for it, and few are answered while it runs.
RSpec.describe 'a Rails 8.1 app served by Falcon', :slow do
  include TmpDirHelper

  let(:pages) { 10_000 }
  # Measured on a 2-core machine at a load average of 2 to 4, in six runs, 434 to 463
  # requests answered while the slow ones ran: 5 to 10 ms at the median, 65 to 102 ms
  # at the 99th percentile, 74 to 224 ms the longest (6.7, 22 and 28 ms beside no slow
  # work); the longest mostly while the Active Storage store keeps the PDF's 50 MB of
  # text in its row, which SQLite's driver writes on the reactor's thread. The bounds
  # leave a busy machine four times that; with the slow work kept on the reactor the
  # longest took 1.4 to 5.2 s.
  let(:p99_bound) { 0.5 }
  let(:max_bound) { 1.0 }
  # Requests sent and answered within each slow request: 120 to 463 here, 0 to 10
  # within one whose work is kept on the reactor.
  let(:served_bound) { 20 }

  before do
    skip "no sandbox here: #{RubyLLM::FileStore::Native.sandbox_problem}" if RubyLLM::FileStore::Native.sandbox_problem
  end

  def chat_with(path, content)
    Conversation.create!(model_id: 'gpt-4.1-mini').tap { |chat| chat.file_store.write(path, content) }
  end

  # The slow requests, sent at once, each on a connection of its own; returns their
  # ChatClients::Request.
  def slow_requests(port, *paths)
    threads = paths.map do |path|
      Thread.new { Net::HTTP.start('127.0.0.1', port, read_timeout: 60) { |http| ChatClients.timed_get(http, path) } }
    end
    threads.map(&:value)
  end

  def percentile(seconds, fraction)
    seconds.sort[(seconds.size * fraction).ceil - 1]
  end

  def ms(seconds) = "#{(seconds * 1000).round} ms"

  def figures(seconds, served, read, run)
    "#{seconds.size} requests while the slow ones ran (the PDF's #{ms(read.seconds)}, the code's " \
      "#{ms(run.seconds)}): median #{ms(percentile(seconds, 0.5))}, 99th percentile " \
      "#{ms(percentile(seconds, 0.99))}, longest #{ms(seconds.max)}; answered within the PDF's request " \
      "#{served[0]}, within the code's #{served[1]}"
  end

  it "answers the other chats' requests within a bound while one chat converts a PDF and another runs code" do
    reader = chat_with('big.pdf', Stalls.pdf_store(tmp_dir, pages).read('big.pdf'))
    others = Array.new(49) { chat_with('notes.md', 'notes') }
    runner = others.pop
    requests, read, run = FalconServer.serving(Rails.application) do |port|
      clients = ChatClients.new(port, others, count: 10, pause: 0.1).start.warm(50)
      slow = slow_requests(port, "/chats/#{reader.id}/read?path=big.pdf", "/chats/#{runner.id}/run?seconds=5")
      [clients.stop, *slow]
    end

    expect(read.response.code).to eq('200')
    expect(read.response.body).to include('## Page 1')
    expect(run.response.code).to eq('200')
    expect(run.response.body).to include('Exit code 0').and include('slept')
    expect(run.seconds).to be >= 5
    expect(requests.map { |request| request.response.code }).to all(eq('200'))
    expect(requests.map { |request| request.response.body }).to all(start_with('notes.md (text/markdown'))

    meanwhile = requests.select { |request| request.sent < [read, run].map(&:answered).max && request.answered > read.sent }
    seconds = meanwhile.map(&:seconds)
    served = [read, run].map { |slow| meanwhile.count { |r| r.sent > slow.sent && r.answered < slow.answered } }
    message = figures(seconds, served, read, run)
    expect(served).to all(be >= served_bound), message
    expect(percentile(seconds, 0.99)).to be < p99_bound, message
    expect(seconds.max).to be < max_bound, message
  end
end
