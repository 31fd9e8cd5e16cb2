# frozen_string_literal: true

# Run by `bin/rails runner` in the generated application: a chat's shared files and
# two people's files, through the Active Storage store; prints what each sees as JSON.
require 'json'

# Chat is `generate model Chat title:string`, or ruby_llm's generated acts_as_chat model,
# which names the LLM it talks to (no request is made here).
chat = if Chat.column_names.include?('title')
         Chat.create!(title: 'Quarterly review')
       else
         Chat.create!(model: 'gpt-4.1-mini', provider: :openai, assume_model_exists: true)
       end
ana = User.create!(name: 'Ana')
ben = User.create!(name: 'Ben')

shared = RubyLLM.file_store.active_storage(chat)
shared.write('brief.md', "# Brief\n")
shared.write('data/report.bin', Random.new(42).bytes(300_000))
RubyLLM.file_store.active_storage(chat, owner: ana).write('ana-notes.md', "Ana's notes")
RubyLLM.file_store.active_storage(chat, owner: ben).write('brief.md', "Ben's brief")

views = { 'shared' => shared, 'ana' => RubyLLM.file_store.active_storage(chat, owner: ana),
          'ben' => RubyLLM.file_store.active_storage(chat, owner: ben) }
puts JSON.generate(
  'chat' => chat.id,
  'rails' => Rails.version,
  'ruby_llm' => defined?(RubyLLM::Chat) && RubyLLM::VERSION,
  'views' => views.transform_values { |store| store.list.map(&:path) },
  'briefs' => views.transform_values { |store| store.read('brief.md') },
  'digests' => shared.list.to_h { |file| [file.path, file.digest] },
  'rows' => chat.ruby_llm_chat_files.count
)
