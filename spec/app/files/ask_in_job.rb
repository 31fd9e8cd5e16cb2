# frozen_string_literal: true

# Run by `bin/rails runner` in an application whose Chat (ruby_llm's acts_as_chat model)
# declares its store, `file_store owner: -> { user }`: a PDF asked about, then later
# questions answered by ChatResponseJob, performed now and through the :async adapter,
# each loading the chat afresh with Chat.find. Checks what each request carried, one
# blob per attachment, and that chat.destroy leaves no blob once the purge jobs ran.
# Prints one line per check; exits 1 on any mismatch.
#
# SCRIPTED_LLM_SERVER names spec/support/scripted_llm_server.rb, PDF a PDF, both in the checkout.
require 'json'
require ENV.fetch('SCRIPTED_LLM_SERVER')
require_relative 'checks'

check = Checks.new
helpers = Object.new.extend(ScriptedLLMServer::Helpers)
first_question = lambda do |body|
  helpers.text_of((body['messages'] || body['input']).find { |item| item['role'] == 'user' }['content'])
end

server = ScriptedLLMServer.start
RubyLLM.configure { |config| server.point(config) }
pdf = ENV.fetch('PDF')
blobs = -> { ActiveStorage::Blob.count }
blobs_before = blobs.call

dana = User.create!(name: 'Dana')
chat = Chat.create!(model: ScriptedLLMServer::MODEL, provider: :openai, assume_model_exists: true, user: dana)
server.script(ScriptedLLMServer.text('A quarterly report.'), ScriptedLLMServer.text('Revenue grew.'),
              ScriptedLLMServer.tool_call('list_files'), ScriptedLLMServer.text('report.pdf is there.'),
              ScriptedLLMServer.text('Noted.'))
Chat.find(chat.id).ask('What is this?', with: pdf)
ChatResponseJob.perform_now(chat.id, 'What happened to revenue?')
adapter = ActiveJob::Base.queue_adapter
ChatResponseJob.perform_later(chat.id, 'Which files does this chat have?')
# The job runs on the adapter's thread; this waits for its answer (or 60 s).
wait_for = lambda do |&done|
  deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 60
  sleep 0.1 until done.call || Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
end
wait_for.call { Chat.find(chat.id).messages.where(role: 'assistant').exists?(content: 'report.pdf is there.') }
puts "ruby_llm #{RubyLLM::VERSION} (#{Object.const_source_location('RubyLLM::Chat').first}), Rails #{Rails.version}, " \
     "jobs on #{adapter.class.name}"

bodies = server.request_bodies
size = File.size(pdf)
rows = RubyLLM::ActiveRecord::ChatFile.where(chat:).to_a
mention = "report.pdf (application/pdf, #{rows.first&.stored_file&.human_size}) is in this chat's files"
check.call('the first request carries the PDF', helpers.attachments_in(bodies[0]).size == 1)
[[1, 'perform_now'], [2, 'the :async adapter']].each do |index, how|
  body = bodies[index]
  check.call("the job's request (#{how}) carries the one-line mention and not the PDF",
             body && first_question.call(body).lines.last == mention && helpers.attachments_in(body).empty? &&
             JSON.generate(body).bytesize < size, body && first_question.call(body).inspect)
end
check.call("the model's list_files call, in the :async job, lists the PDF",
           bodies[3] && helpers.tool_outputs(bodies[3]).join.include?('report.pdf'), bodies.size)
puts "request sizes: #{bodies.map { |body| JSON.generate(body).bytesize }.join(', ')} bytes (the PDF: #{size})"

message_blob = chat.messages.flat_map { |message| message.attachments.map(&:blob) }.first
check.call("the PDF is one row of the chat's files, Dana's", rows.map { |row| [row.path, row.owner] } ==
                                                               [['report.pdf', dana]], rows.map(&:path).inspect)
check.call("the row shares the message attachment's blob: one blob for the attachment",
           rows.first&.file&.blob == message_blob && blobs.call - blobs_before == 1, blobs.call - blobs_before)

Chat.find(chat.id).with_file_store.ask('And for everyone?')
check.call('a store without Dana does not copy her PDF as a shared file',
           chat.ruby_llm_chat_files.count == 1 && chat.ruby_llm_chat_files.shared.none?)

Chat.find(chat.id).destroy
wait_for.call { blobs.call == blobs_before } # Active Storage's purge jobs, on the adapter's threads
check.call('chat.destroy leaves no blob behind, once the purge jobs ran', blobs.call == blobs_before,
           "#{blobs.call - blobs_before} left")
server.stop

check.finish!
