# frozen_string_literal: true

# Run by `bin/rails runner` in an application whose Chat (ruby_llm's acts_as_chat model)
# declares its store, `file_store owner: -> { user }`: a PDF asked about, then later
# questions answered by the ChatResponseJob `bin/rails generate ruby_llm:chat_ui`
# wrote, as it wrote it (Chat.find(id).ask(content), streaming each chunk to the page
# through Turbo), performed now and through the :async adapter. In the first job the
# model finds a word that is only in the PDF's text with search_files and reads the PDF
# with read_file. Checks what each request carried, what the page was sent, one blob per
# attachment, and that chat.destroy leaves no blob once the purge jobs ran. Prints one
# line per check; exits 1 on any mismatch.
#
# SCRIPTED_LLM_SERVER names spec/support/scripted_llm_server.rb, PDF a PDF, both in the
# checkout. TurboBroadcasts (config/initializers/turbo_broadcasts.rb) records what Turbo
# would have broadcast.
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
# The gem's events, as an APM sees them, and each download of a blob's bytes.
events = Hash.new(0)
ActiveSupport::Notifications.subscribe(/\.file_store\.ruby_llm\z/) { |name, *| events[name] += 1 }
DOWNLOADS = Module.new do
  class << self
    attr_accessor :count
  end
  self.count = 0

  def download(...)
    DOWNLOADS.count += 1
    super
  end
end
ActiveStorage::Blob.prepend(DOWNLOADS)
log_from = File.size?(Rails.root.join('log', "#{Rails.env}.log")).to_i
blobs = -> { ActiveStorage::Blob.count }
blobs_before = blobs.call

dana = User.create!(name: 'Dana')
chat = Chat.create!(model: ScriptedLLMServer::MODEL, provider: :openai, assume_model_exists: true, user: dana)
s = ScriptedLLMServer
hiring = 'Hiring continues in Lyon and Zürich.'
server.script(s.text('A quarterly report.'),
              s.tool_call('search_files', { pattern: 'Lyon' }), s.tool_call('read_file', { path: 'report.pdf' }),
              s.text(hiring),
              s.tool_call('list_files'), s.text('report.pdf is there.'),
              s.text('Noted.'))
Chat.find(chat.id).ask('What is this?', with: pdf)
downloads = [DOWNLOADS.count]
ChatResponseJob.perform_now(chat.id, 'Where is the company hiring?')
downloads << DOWNLOADS.count
hiring_reply = chat.messages.where(role: 'assistant').last
adapter = ActiveJob::Base.queue_adapter
ChatResponseJob.perform_later(chat.id, 'Which files does this chat have?')
# The job runs on the adapter's thread; this waits for its answer (or 60 s).
wait_for = lambda do |&done|
  deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 60
  sleep 0.1 until done.call || Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
end
wait_for.call { Chat.find(chat.id).messages.where(role: 'assistant').exists?(content: 'report.pdf is there.') }
downloads << DOWNLOADS.count
puts "ruby_llm #{RubyLLM::VERSION} (#{Object.const_source_location('RubyLLM::Chat').first}), Rails #{Rails.version}, " \
     "jobs on #{adapter.class.name}"

bodies = server.request_bodies
size = File.size(pdf)
rows = RubyLLM::ActiveRecord::ChatFile.where(chat:).to_a
mention = "report.pdf (application/pdf, #{rows.first&.stored_file&.human_size}) is in this chat's files"
check.call('the first request carries the PDF', helpers.attachments_in(bodies[0]).size == 1)
[[1, 'perform_now'], [4, 'the :async adapter']].each do |index, how|
  body = bodies[index]
  check.call("the job's request (#{how}) carries the one-line mention and not the PDF",
             body && first_question.call(body).lines.last == mention && helpers.attachments_in(body).empty? &&
             JSON.generate(body).bytesize < size, body && first_question.call(body).inspect)
  check.call("the job (#{how}) streams its answer, as ruby_llm:chat_ui wrote it", body && body['stream'] == true)
end
found = bodies[2] && helpers.tool_outputs(bodies[2]).last
check.call("the model's search_files call finds Lyon, a word only in the PDF's text, in report.pdf",
           found.to_s.match?(/^report\.pdf:\d+: .*hiring continues in Lyon/), found.inspect)
read = bodies[3] && helpers.tool_outputs(bodies[3]).last
check.call("the model's read_file call returns the PDF's text",
           read.to_s.include?('Revenue grew 12 percent') && read.include?('hiring continues in Lyon and Zürich'),
           read.to_s[0, 300].inspect)
check.call("the model's list_files call, in the :async job, lists the PDF",
           bodies[5] && helpers.tool_outputs(bodies[5]).last.include?('report.pdf'), bodies.size)
streamed = TurboBroadcasts.sent.select { |sent| sent[:target] == "message_#{hiring_reply.id}_content" }
check.call("the page is sent the job's answer chunk by chunk (Turbo broadcasts to chat_#{chat.id})",
           hiring_reply.content == hiring && streamed.size > 1 && streamed.map { |sent| sent[:content] }.join == hiring &&
           streamed.all? { |sent| sent[:stream] == "chat_#{chat.id}" }, streamed.inspect)
puts "request sizes: #{bodies.map { |body| JSON.generate(body).bytesize }.join(', ')} bytes (the PDF: #{size})"

%w[tool convert attachment].each do |event|
  check.call("a subscriber sees #{event}.file_store.ruby_llm events", events["#{event}.file_store.ruby_llm"].positive?,
             events.inspect)
end
log = File.binread(Rails.root.join('log', "#{Rails.env}.log")).byteslice(log_from..).to_s
%w[search_files read_file list_files].each do |tool|
  check.call("log/#{Rails.env}.log has a line for the model's #{tool} call",
             # After Active Job's tags on a job's lines.
             log.match?(/(?:^|\] ) *FileStore #{tool}\b.*: ok, /), log.lines.grep(/FileStore #{tool}/).inspect)
end
# The first question's may read it once; the :async job's question, whose model only lists files, never.
check.call('a later question downloads no earlier attachment (downloads after each question: ' \
           "#{downloads.join(', ')})", downloads.first <= 1 && downloads.last == downloads[1], downloads.inspect)

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
