# frozen_string_literal: true

# What each marked block of the README and docs/ needs before it runs, by the name
# of its marker (<!-- example: name --> on the line before the fence). A block runs
# as written in a fresh folder, in a process of its own (spec/readme/runner.rb), after its setup:
#
# - needs:   what the process loads: "ruby_llm" (the real one, from RUBY_LLM_PATH;
#            the example is tagged :ruby_llm), "rails" (Active Record and Active
#            Storage on SQLite, as the specs run them), "acts_as_chat" (ruby_llm's
#            Rails models; tagged :acts_as_chat too)
# - files:   the files the block names, made in its folder first: a String is the
#            content, { fixture: } a copy of spec/fixtures, { pdf: } a PDF whose
#            pages hold those lines, a path ending in / a folder
# - before:  Ruby run first at the top level, standing for what the block's prose
#            says is already there (a chat, a record, a bucket)
# - replies: for a block that talks to a model, the scripted server's replies, in
#            order; every one must be asked for
# - after:   Ruby run after the block, checking what the prose around it says
# - runner:  "rspec" for a block that is a spec file
# - slow:    true for a block that takes seconds (tagged :slow, left out of bin/test fast)
module ReadmeSetups # rubocop:disable Metrics/ModuleLength -- a table of data, one entry per marked block
  CONTRACT = [
    ['Services agreement', '1. Services. The supplier provides the services of annex A.',
     '2. Fees. Fees are due within 30 days of each invoice.'],
    ['3. Termination. Either party may end this agreement with 60 days\' written notice.',
     '4. Law. This agreement is governed by the laws of Ireland.']
  ].freeze

  SETUPS = {
    'chat' => {
      needs: %w[ruby_llm],
      files: { 'contract-v1.pdf' => { pdf: CONTRACT.map { |page| page.map { |line| line.sub('60', '30') } } },
               'contract-v2.pdf' => { pdf: CONTRACT } },
      replies: <<~RUBY,
        [ScriptedLLMServer.text('The notice period went from 30 to 60 days.'),
         ScriptedLLMServer.tool_call('search_files', { pattern: 'termination', ignore_case: true }),
         ScriptedLLMServer.tool_call('read_file', { path: 'contract-v2.pdf' }),
         ScriptedLLMServer.text('3. Termination. Either party may end this agreement with 60 days written notice.')]
      RUBY
      # The prose: the second question's request carries a line for each PDF, not the PDF;
      # search_files finds "termination" in both PDFs' text (the converters are on by
      # default), and read_file returns the new clause.
      after: <<~RUBY
        bodies = ReadmeRun.server.request_bodies
        second = JSON.generate(bodies[1])
        first = JSON.generate(bodies[0])
        raise 'the first request does not carry the PDFs' unless first.include?('application/pdf;base64') ||
                                                                 first.include?('data:application/pdf')
        raise "the second request resends a PDF: \#{second[0, 300]}" if second.include?('base64')
        %w[contract-v1.pdf contract-v2.pdf].each do |name|
          raise "the second request has no line for \#{name}" unless second.include?("\#{name} (application/pdf")
        end
        outputs = Object.new.extend(ScriptedLLMServer::Helpers)
        found = outputs.tool_outputs(bodies[2]).join("\\n")
        { 'contract-v1.pdf' => '30', 'contract-v2.pdf' => '60' }.each do |name, days|
          raise "search_files did not find termination in \#{name}: \#{found}" unless
            found.match?(/^\#{Regexp.escape(name)}:\\d+: 3\\. Termination\\. Either party may end this agreement with \#{days} days/)
        end
        read = outputs.tool_outputs(bodies[3]).last.to_s
        raise "read_file did not return the new clause: \#{read[0, 300]}" unless
          read.match?(/^ *\\d+\\t3\\. Termination\\. Either party may end this agreement with 60 days/)
      RUBY
    },
    'chat-options' => { needs: %w[ruby_llm], before: 'chat = RubyLLM.chat' },
    # The provider's embeddings endpoint, scripted: a text's vector counts its words of a
    # few meanings (ScriptedEmbeddingsServer::CONCEPTS), so the question and the manual's
    # passage, which share no word, are near.
    'embeddings' => {
      needs: %w[ruby_llm],
      before: <<~RUBY,
        require File.join(ROOT, 'spec/support/scripted_embeddings_server')
        embeddings = ScriptedEmbeddingsServer.start
        embeddings.point(RubyLLM.config)
      RUBY
      after: <<~RUBY
        store.rank_passages("how do I stop a query that runs too long", config: RubyLLM.config.dup.tap { |c| c.file_store_embeddings = nil }).first[:path] == 'server.md' ||
          raise('by words alone the manual came first: the example shows nothing')
      RUBY
    },
    'tool-spill' => { needs: %w[ruby_llm] },
    'agents' => { needs: %w[ruby_llm] },
    'stores' => {
      files: { 'export.csv' => "region,revenue\nnorth,120\nsouth,95\n" }
    },
    'stored-file' => {
      before: <<~RUBY
        store = RubyLLM.file_store.memory
        store.write('brief.md', "# Brief\\n\\n\#{'The supplier delivers the services of annex A. ' * 17}".ljust(812, '.'))
      RUBY
    },
    'store-contract' => {
      runner: 'rspec',
      slow: true,
      before: <<~RUBY
        require File.join(ROOT, 'spec/readme/bucket_store')
        def bucket = @bucket ||= {}
      RUBY
    },
    'rails-store' => {
      needs: %w[rails],
      files: { 'contract.pdf' => { pdf: CONTRACT } },
      before: <<~RUBY,
        class ApplicationRecord < ActiveRecord::Base
          self.abstract_class = true
        end

        # A message as ruby_llm's generator makes it: its files are its attachments.
        class Message < ApplicationRecord
          belongs_to :chat
          has_many_attached :attachments
        end

        # The chat and its message with an attachment, as the application has them.
        def chat = @chat ||= Chat.create!(title: 'Contract review')

        BLOBS_MADE = []
        ActiveStorage::Blob.after_create { BLOBS_MADE << id }

        def message
          @message ||= Message.create!(chat:, content: 'The contract').tap do |message|
            message.attachments.attach(io: File.open('contract.pdf'), filename: 'contract.pdf')
          end
        end
      RUBY
      after: <<~RUBY
        # brief.md's blob and the message's, which contract.pdf shares: one copy.
        raise "\#{BLOBS_MADE.size} blobs made, not 2: the attachment was copied" unless BLOBS_MADE.size == 2
        raise 'chat.destroy left its files' if RubyLLM::ActiveRecord::ChatFile.where(chat_id: chat.id).exists?
        # Purged: brief.md's blob; kept: the message's, which something else uses.
        raise "blobs left: \#{ActiveStorage::Blob.pluck(:id)}" unless
          ActiveStorage::Blob.pluck(:id) == [message.reload.attachments.first.blob.id]
      RUBY
    },
    'sqlite-job' => {
      needs: %w[rails],
      before: <<~RUBY,
        RailsModels.define
        def chat = @chat ||= Chat.create!(title: 'Notes')
      RUBY
      after: <<~RUBY
        raise 'the job wrote nothing' unless RubyLLM.file_store.active_storage(chat).read('notes.md') == 'written by a job'
      RUBY
    },
    'acts-as-chat' => {
      needs: %w[ruby_llm rails acts_as_chat],
      files: { 'contract.pdf' => { pdf: CONTRACT } },
      replies: "ScriptedLLMServer.text('60 days, in writing.')",
      before: <<~RUBY,
        ActsAsChatDB.setup!
        RailsModels.define
        Current = Struct.new(:user).new(User.create!(name: 'Dana'))
        other_store = RubyLLM.file_store.memory
        chat = Conversation.create!(model: ScriptedLLMServer::MODEL, provider: :openai, assume_model_exists: true)
      RUBY
      after: <<~RUBY
        rows = RubyLLM::ActiveRecord::ChatFile.where(chat_type: 'Conversation', chat_id: chat.id)
        raise "contract.pdf is not a row of the chat's files: \#{rows.pluck(:path)}" unless
          rows.pluck(:path) == ['contract.pdf']
        raise 'the other store took the attachment' if other_store.exist?('contract.pdf')
      RUBY
    },
    'acts-as-chat-declared' => {
      needs: %w[ruby_llm rails acts_as_chat],
      files: { 'contract.pdf' => { pdf: CONTRACT } },
      replies: "ScriptedLLMServer.text('60 days, in writing.')",
      # The application's chats and messages tables, as ruby_llm's generator makes them
      # (the spec schema's conversations, renamed), with the chat's user.
      before: <<~RUBY,
        ActsAsChatDB.setup!
        connection = ActiveRecord::Base.connection
        %i[messages chats].each { |table| connection.drop_table(table) }
        renames = { 'conversation_messages' => 'messages', 'conversations' => 'chats', 'conversation_id' => 'chat_id' }
        %w[conversations conversation_messages].each do |table|
          connection.select_values("SELECT sql FROM sqlite_master WHERE tbl_name = '\#{table}' AND sql IS NOT NULL").each do |sql|
            connection.execute(sql.gsub(Regexp.union(renames.keys)) { |name| renames[name] })
          end
        end
        connection.add_column :chats, :user_id, :integer
        # ruby_llm 1.16.0's tool calls belong to the application's messages.
        connection.add_reference :tool_calls, :message if connection.table_exists?(:tool_calls)
        class ApplicationRecord < ActiveRecord::Base
          self.abstract_class = true
        end
        class Message < ApplicationRecord
          acts_as_message
          has_many_attached :attachments
        end
        class User < ApplicationRecord; end
        user = User.create!(name: 'Dana')
        # The model a chat of the spec schema gets, given to the new chat's row.
        model = Conversation.create!(model: ScriptedLLMServer::MODEL, provider: :openai, assume_model_exists: true)
                            .attributes.slice('ruby_llm_model_id', 'model_id').transform_keys(&:to_sym)
        id = Class.new(ActiveRecord::Base) { self.table_name = 'chats' }.create!(user_id: user.id, **model).id
      RUBY
      after: <<~RUBY
        rows = RubyLLM::ActiveRecord::ChatFile.where(chat_type: 'Chat', chat_id: id)
        raise "contract.pdf is not the user's row: \#{rows.pluck(:path, :owner_key)}" unless
          rows.pluck(:path) == ['contract.pdf'] && rows.first.owner == user
      RUBY
    },
    'converters' => { needs: %w[ruby_llm] },
    'native-converters' => { needs: %w[ruby_llm] },
    'running-code' => { needs: %w[ruby_llm], files: { 'app/skills/' => nil } },
    'instrumentation' => { needs: %w[ruby_llm] }
  }.freeze

  module_function

  def for(name)
    SETUPS.fetch(name, {})
  end
end
