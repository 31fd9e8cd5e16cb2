# frozen_string_literal: true

# ruby_llm's Rails integration for the specs tagged :acts_as_chat: its Active Record
# files loaded as its railtie loads them, the tables of its install generator (on
# main, its ruby_llm_* tables trimmed to SQLite, without the batches a chat does not
# use; on 1.16.0, the application's own models and tool calls tables), and an
# application's Conversation (acts_as_chat) and ConversationMessage (acts_as_message,
# with attachments). Needs the real ruby_llm and the :rails database.
module ActsAsChatDB
  module_function

  def setup!
    return if @set_up

    load_ruby_llm_active_record
    create_tables_and_models
    @set_up = true
  end

  # The tables and the application's models, once ruby_llm's ActsAs is in Active
  # Record: here by load_ruby_llm_active_record, in a Rails application by ruby_llm's
  # railtie (spec/async/falcon/application.rb).
  def create_tables_and_models
    if release?
      ActsAsChatDB::Release.create_tables
      ActsAsChatDB::Release.define_models
    else
      create_tables
      define_models
      ActsAsChatDB::MariaDB.declare_json
    end
  end

  # ruby_llm 1.16.0 keeps models and tool calls in the application's tables
  # (acts_as_model, acts_as_tool_call); main keeps them in its own ruby_llm_* tables.
  def release?
    !$LOAD_PATH.resolve_feature_path('ruby_llm/active_record/model_methods').nil?
  end

  # What ruby_llm's railtie does on Active Record's load (with the new acts_as API
  # 1.16.0's generator turns on), then this gem's hook. Including ActsAs points
  # ruby_llm's model registry (and main's batch store) at the tables when unset; the
  # other specs expect the bundled registry, so they are put back.
  def load_ruby_llm_active_record
    files = %w[payload_helpers chat_methods message_methods acts_as]
    files.insert(1, *(release? ? %w[model_methods tool_call_methods] : %w[model tool_call usage batch]))
    files.each { |file| require "ruby_llm/active_record/#{file}" }
    settings = %i[model_registry_store batch_store model_registry_source].select { |name| RubyLLM.config.respond_to?(name) }
    saved = settings.to_h { |name| [name, RubyLLM.config.public_send(name)] }
    ActiveRecord::Base.include(RubyLLM::ActiveRecord::ActsAs)
    saved.each { |name, value| RubyLLM.config.public_send(:"#{name}=", value) }
    RubyLLM::FileStore::ActsAsChat.install
    PreloaderBackport.apply unless release?
  end

  def create_tables
    ActiveRecord::Schema.define do
      create_table :ruby_llm_models do |t|
        t.string :model_id, :name, :provider, null: false
        t.string :family
        t.datetime :model_created_at
        t.integer :context_window, :max_output_tokens
        t.date :knowledge_cutoff
        t.json :modalities, :capabilities, :pricing, :metadata
        t.timestamps
        t.index %i[provider model_id], unique: true
      end
    end
    create_tool_call_and_usage_tables
    create_chat_tables
  end

  def create_tool_call_and_usage_tables
    ActiveRecord::Schema.define do
      create_table :ruby_llm_tool_calls do |t|
        t.references :message, polymorphic: true, null: false
        t.references :result, polymorphic: true
        t.string :tool_call_id, :name, null: false
        t.text :thought_signature
        t.string :approval
        t.json :arguments
        t.timestamps
      end
      create_table :ruby_llm_usages do |t|
        t.references :chat, polymorphic: true, null: false
        t.references :message, polymorphic: true
        t.string :operation, :provider, :model, :status, null: false
        t.integer :input_tokens, :output_tokens, :cache_read_tokens, :cache_write_tokens, :thinking_tokens
        t.decimal :input_cost, :output_cost, :cache_read_cost, :cache_write_cost, :thinking_cost, :total_cost,
                  precision: 16, scale: 10
        t.timestamps
      end
    end
  end

  def create_chat_tables
    ActiveRecord::Schema.define do
      create_table :conversations do |t|
        t.references :ruby_llm_model, null: false
        t.boolean :cancelled, null: false, default: false
        t.timestamps
      end
      create_table :conversation_messages do |t|
        t.references :conversation, null: false
        t.string :role, null: false
        t.text :content, :thinking_text, :thinking_signature
        t.boolean :cache_until_here, null: false, default: false
        t.json :citations, :server_tool_calls, :raw_content, :raw_reasoning
        t.string :finish_reason
        t.timestamps
      end
    end
  end

  def define_models
    Object.const_set(:Conversation, Class.new(ActiveRecord::Base) do
      acts_as_chat messages: :conversation_messages
    end)
    Object.const_set(:ConversationMessage, Class.new(ActiveRecord::Base) do
      acts_as_message chat: :conversation
      has_many_attached :attachments
    end)
  end

  # ruby_llm main preloads with Active Record 7's Preloader.new(records:,
  # associations:).call (1.16.0 does not preload); Rails 6.1 spells it Preloader.new.preload(records,
  # associations). This gives 6.1 the 7.0 form, for the specs only.
  module PreloaderBackport
    def self.apply
      return unless ActiveRecord::VERSION::MAJOR < 7

      ActiveRecord::Associations::Preloader.prepend(self) unless ActiveRecord::Associations::Preloader < self
    end

    def initialize(records: nil, associations: nil, **options)
      @backported = [records, associations]
      super(**options)
    end

    def call
      preload(*@backported)
    end
  end
end

# A scripted provider-compatible server for the example, and a RubyLLM.context pointed
# at it for the chat records.
RSpec.shared_context 'a scripted server for chat records' do
  include ScriptedLLMServer::Helpers

  let(:server) { ScriptedLLMServer.start }
  let(:context) do
    scripted = server
    RubyLLM.context { |config| scripted.point(config) }
  end

  after { server.stop }
end

RSpec.configure do |config|
  config.before(:context, :acts_as_chat) do
    skip "needs Active Record, Active Storage and sqlite3: #{ActiveStorageDB.load_error}" unless
      ActiveStorageDB.available?
    # bin/test-ruby-llm names the Rails each run is for; a run on another fails.
    rails = ENV.fetch('RUBY_LLM_FILE_STORE_RAILS', nil)
    raise "asked for Rails #{rails}, loaded Active Record #{ActiveRecord.version}" if
      rails && !"#{ActiveRecord.version}.".start_with?("#{rails}.")

    ActiveStorageDB.setup!
    ActsAsChatDB.setup!
  end
end
