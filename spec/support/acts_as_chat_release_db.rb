# frozen_string_literal: true

module ActsAsChatDB
  # ruby_llm 1.16.0's install generator, run as `rails g ruby_llm:install
  # chat:Conversation message:ConversationMessage`: the tables its migration templates
  # create (trimmed to SQLite), and the models its model templates declare. Models and
  # tool calls are the application's own (Model, ToolCall), as the generator names them.
  module Release
    module_function

    def create_tables
      ActiveRecord::Schema.define do
        create_table :models do |t|
          t.string :model_id, :name, :provider, null: false
          t.string :family
          t.datetime :model_created_at
          t.integer :context_window, :max_output_tokens
          t.date :knowledge_cutoff
          t.json :modalities, default: {}
          t.json :capabilities, default: []
          t.json :pricing, default: {}
          t.json :metadata, default: {}
          t.timestamps
          t.index %i[provider model_id], unique: true
        end
      end
      create_chat_tables
      add_references
    end

    def create_chat_tables
      ActiveRecord::Schema.define do
        create_table(:conversations, &:timestamps)
        create_table :conversation_messages do |t|
          t.string :role, null: false
          t.text :content
          t.json :content_raw
          t.text :thinking_text, :thinking_signature
          t.integer :thinking_tokens, :input_tokens, :output_tokens, :cached_tokens, :cache_creation_tokens
          t.timestamps
          t.index :role
        end
        create_table :tool_calls do |t|
          t.string :tool_call_id, :name, null: false
          t.text :thought_signature
          t.json :arguments, default: {}
          t.timestamps
          t.index :tool_call_id, unique: true
          t.index :name
        end
      end
    end

    # The generator's add_references migration.
    def add_references
      ActiveRecord::Schema.define do
        add_reference :conversations, :model, foreign_key: true
        add_reference :tool_calls, :conversation_message, null: false, foreign_key: true
        add_reference :conversation_messages, :conversation, null: false, foreign_key: true
        add_reference :conversation_messages, :model, foreign_key: true
        add_reference :conversation_messages, :tool_call, foreign_key: true
      end
    end

    # The chat and message models as on main, plus the application's own two.
    def define_models
      ActsAsChatDB.define_models
      Object.const_set(:ToolCall, Class.new(ActiveRecord::Base) { acts_as_tool_call message: :conversation_message })
      Object.const_set(:Model, Class.new(ActiveRecord::Base) { acts_as_model chats: :conversations })
    end
  end
end
