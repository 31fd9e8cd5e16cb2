# frozen_string_literal: true

require 'async'
require 'async/http/endpoint'
require 'falcon'
require 'net/http'
require 'action_controller'
require_relative '../../bench/support/stalls'

# A Rails 8.1 request stack (Action Pack's routes and an API controller) over ruby_llm's
# acts_as_chat records and their declared stores, served by Falcon in this process on
# one reactor thread, as one Falcon worker serves every request: of 50 chats, while one
# chat's request converts a slow PDF and runs code for 5 s, the other 49 chats'
# requests keep answering. Active Record hands out connections by fiber, as ruby_llm's
# guide for Async sets.
RSpec.describe 'a Rails 8.1 app served by Falcon', :acts_as_chat, :slow do
  include TmpDirHelper

  # The app's requests, each on its chat's declared store through the tools.
  falcon_chats = Class.new(ActionController::API) do
    def read
      store = Conversation.find(params[:id]).file_store
      render plain: RubyLLM::FileStore::Tools::ReadFile.new(store).call(path: 'big.pdf', limit: 1)
    end

    def run
      outcome = Stalls.run_code(Dir.tmpdir, 5)
      render plain: "exit #{outcome.fetch(:exit_code)}"
    end

    def files
      store = Conversation.find(params[:id]).file_store
      render plain: RubyLLM::FileStore::Tools::ListFiles.new(store).call
    end
  end

  Object.const_set(:FalconChatsController, falcon_chats) unless Object.const_defined?(:FalconChatsController)

  def app
    routes = ActionDispatch::Routing::RouteSet.new
    routes.draw do
      get 'chats/:id/read', to: 'falcon_chats#read'
      get 'chats/:id/run', to: 'falcon_chats#run'
      get 'chats/:id/files', to: 'falcon_chats#files'
    end
    routes
  end

  # Starts Falcon on a free port in a thread of its own; yields the port.
  def serving
    server = TCPServer.new('127.0.0.1', 0)
    port = server.addr[1]
    server.close
    endpoint = Async::HTTP::Endpoint.parse("http://127.0.0.1:#{port}")
    thread = Thread.new do
      Sync { Falcon::Server.new(Falcon::Server.middleware(app, cache: false), endpoint).run.wait }
    end
    Stalls.timed { sleep 0.05 until listening?(port) }
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

  def get(port, path)
    Net::HTTP.start('127.0.0.1', port, read_timeout: 60) { |http| http.get(path) }
  end

  before(:context) do
    # No request here reaches a model; ruby_llm wants a provider configured all the same.
    RubyLLM.configure { |config| config.openai_api_key ||= 'not used' }
    Conversation.file_store unless Conversation.file_store_declaration
    @level = ActiveSupport::IsolatedExecutionState.isolation_level
    ActiveSupport::IsolatedExecutionState.isolation_level = :fiber
  end

  after(:context) { ActiveSupport::IsolatedExecutionState.isolation_level = @level }

  it 'answers the other chats while one converts a slow PDF and one runs code' do
    skip "no sandbox here: #{RubyLLM::FileStore::Native.sandbox_problem}" if RubyLLM::FileStore::Native.sandbox_problem
    slow = Conversation.create!(model_id: 'gpt-4.1-mini')
    pdf = Stalls.pdf_store(tmp_dir, 12_000)
    slow.file_store.write('big.pdf', pdf.read('big.pdf'))
    others = Array.new(49) do
      Conversation.create!(model_id: 'gpt-4.1-mini').tap { |chat| chat.file_store.write('notes.md', 'notes') }
    end
    serving do |port|
      expect(get(port, "/chats/#{others.first.id}/files").body).to include('notes.md')
      ended = {}
      started = Stalls.now
      busy = { read: "/chats/#{slow.id}/read", run: "/chats/#{slow.id}/run" }.map do |name, path|
        Thread.new do
          started = Stalls.now
          response = get(port, path)
          ended[name] = Stalls.now
          [response, ended[name] - started]
        end
      end
      # Ten clients ask for the other chats' files, one request after another, until
      # both slow requests have ended.
      answered = Queue.new
      clients = Array.new(10) do |n|
        Thread.new do
          others.rotate(n * 5).cycle do |chat|
            break if ended.size == 2

            expect(get(port, "/chats/#{chat.id}/files").body).to include('notes.md')
            answered << Stalls.now
          end
        end
      end
      (read, read_took), (ran, run_took) = busy.map(&:value)
      clients.each(&:join)
      expect(read.body).to include('Page 1')
      expect(ran.body).to eq('exit 0')
      first_end = ended.values.min
      times = Array.new(answered.size) { answered.pop }
      meanwhile = times.count { |time| time > started + 0.5 && time < first_end }
      # A reactor stalled by the slow requests answers none while they run; a busy
      # machine answers fewer than a quiet one, so the bound is low.
      expect(meanwhile).to be >= 3,
                           "#{meanwhile} of #{times.size} answered while both ran; the PDF took " \
                           "#{read_took.round(2)} s, the code #{run_took.round(2)} s"
    end
  end
end
