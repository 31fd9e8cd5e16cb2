# frozen_string_literal: true

# Run by `bin/rails runner` in an application where `bin/rails generate ruby_llm:install`
# made Chat (acts_as_chat): a Chat record takes with_file_store(owner:), asks with an
# attachment against the checkout's scripted OpenAI-compatible server on 127.0.0.1, and
# each thing a user would look at is checked and printed. Exits 1 on any mismatch.
#
# SCRIPTED_LLM_SERVER names spec/support/scripted_llm_server.rb in the checkout.
require 'json'
require 'tmpdir'
require ENV.fetch('SCRIPTED_LLM_SERVER')
require_relative 'checks'

check = Checks.new
helpers = Object.new.extend(ScriptedLLMServer::Helpers)

server = ScriptedLLMServer.start
RubyLLM.configure { |config| server.point(config) }

text = "Termination: 30 days' notice.\n"
attachment = File.join(Dir.mktmpdir, 'notes.txt')
File.write(attachment, text)
dana = User.create!(name: 'Dana')
chat = Chat.create!(model: ScriptedLLMServer::MODEL, provider: :openai, assume_model_exists: true)
server.script(ScriptedLLMServer.text('It is in clause 7.'),
              ScriptedLLMServer.tool_call('read_file', { path: 'notes.txt' }),
              ScriptedLLMServer.text("30 days' notice."))

chat.with_file_store(owner: dana).ask('What is the notice period?', with: attachment)
reply = chat.ask('Quote the clause')
puts "ruby_llm #{RubyLLM::VERSION} (#{Object.const_source_location('RubyLLM::Chat').first}), " \
     "Rails #{Rails.version}, #{chat.class.name} ##{chat.id}"

rows = RubyLLM::ActiveRecord::ChatFile.where(chat:).to_a
check.call("the attachment is one row of the chat's files, under Dana",
           rows.map { |row| [row.path, row.owner, row.file.download] } == [['notes.txt', dana, text]],
           rows.map { |row| [row.path, row.owner&.name] }.inspect)
check.call('chat.ruby_llm_chat_files lists it', chat.ruby_llm_chat_files.pluck(:path) == ['notes.txt'])

first, second, third = server.request_bodies
# A text attachment goes inline as text; other kinds as a file part.
check.call('the first request carries the attachment', helpers.attachments_in(first).size == 1 ||
                                                         JSON.generate(first).include?(text.chomp))
# Chat Completions sends messages, the Responses API input; ruby_llm main may use either.
user_text = helpers.text_of((second['messages'] || second['input']).find { |item| item['role'] == 'user' }['content'])
mention = "notes.txt (text/plain, #{text.bytesize} bytes) is in this chat's files"
check.call('the second request carries a one-line mention instead of the attachment',
           user_text.lines.last == mention && helpers.attachments_in(second).empty? &&
           !JSON.generate(second).include?('30 days'), user_text.inspect)
check.call("the model's read_file call returns the file's text",
           helpers.tool_outputs(third).join.include?(text.chomp), helpers.tool_outputs(third).inspect)
check.call('the reply is the scripted one', reply.content == "30 days' notice.", reply.content.inspect)

chat.destroy
check.call("chat.destroy removes the chat's files",
           RubyLLM::ActiveRecord::ChatFile.where(chat_type: 'Chat', chat_id: chat.id).none?)
server.stop

check.finish!
