# frozen_string_literal: true

# The same scripted 10-question conversation with and without a file store: a
# 40-page PDF attached to the first question, a 30,000-character tool result in the
# third. Prints the bytes of each request and the totals. Needs the real ruby_llm:
#
#   RUBY_LLM_PATH=/path/to/ruby_llm_and_deps ruby bench/conversation.rb
#
# A real RubyLLM::Chat talks to a scripted OpenAI-compatible server on 127.0.0.1,
# which answers the same way both times and records every request body.

abort 'Set RUBY_LLM_PATH to a folder of ruby_llm and its dependencies, one lib/ each' unless ENV['RUBY_LLM_PATH']
ENV.fetch('RUBY_LLM_PATH').split(':').each do |set|
  Dir[File.join(set, '*', 'lib')].each do |lib|
    $LOAD_PATH.unshift(lib)
  end
end
$LOAD_PATH.unshift(File.expand_path('../lib', __dir__))
require 'ruby_llm'
require 'ruby_llm/file_store'
require 'tmpdir'
require_relative '../spec/support/scripted_llm_server'
require_relative 'support/conversation_fixtures'

# Runs the conversation against the server and returns the bytes of each request
# and the answers.
class Conversation
  include ScriptedLLMServer::Helpers

  QUESTIONS = ['Summarize the attached report', 'What does chapter 12 say about budgets?',
               'Pull the latest sales report', 'Which region grew fastest?', 'And the slowest?',
               'Compare with chapter 3', 'List the risks', 'Who owns each risk?', 'Draft a one-line summary',
               'Thanks, that is all'].freeze

  def initialize(server, document)
    @server = server
    @document = document
  end

  def run(store:)
    first = @server.requests.size
    chat = scripted_chat(@server).with_tools(ConversationFixtures::SalesReport)
    chat.with_file_store(RubyLLM.file_store.memory) if store
    script
    answers = QUESTIONS.each_with_index.map do |question, index|
      chat.ask(question, with: index.zero? ? @document : nil).content
    end
    per_question = @server.requests[first..].map { |request| request[:bytes] }
    [per_question, answers]
  end

  private

  def script
    replies = QUESTIONS.each_index.flat_map do |index|
      answer = ScriptedLLMServer.text("Answer #{index + 1}.")
      index == 2 ? [ScriptedLLMServer.tool_call(ConversationFixtures::SalesReport.new.name), answer] : [answer]
    end
    @server.script(*replies)
  end
end

Dir.mktmpdir('conversation_bench') do |dir|
  document = ConversationFixtures.pdf(File.join(dir, 'annual-report.pdf'), pages: 40)
  server = ScriptedLLMServer.start
  conversation = Conversation.new(server, document)
  without, answers_without = conversation.run(store: false)
  with, answers_with = conversation.run(store: true)
  server.stop

  puts "A 10-question conversation: a #{File.size(document) / 1024} KB, 40-page PDF attached to question 1, " \
       "a #{ConversationFixtures::RESULT_SIZE}-character tool result in question 3. Bytes of each request body:"
  labels = ['1', '2', '3', '3, after the tool', *('4'..'10')]
  puts format('%-20<q>s %14<without>s %14<with>s %10<saved>s', q: 'question', without: 'without store',
                                                               with: 'with store', saved: 'smaller')
  without.each_index do |i|
    saved = 100.0 * (without[i] - with[i]) / without[i]
    puts format('%-20<q>s %14<without>d %14<with>d %9.1<saved>f%%', q: labels[i], without: without[i],
                                                                    with: with[i], saved:)
  end
  total_saved = 100.0 * (without.sum - with.sum) / without.sum
  puts format('%-20<q>s %14<without>d %14<with>d %9.1<saved>f%%', q: 'total', without: without.sum,
                                                                  with: with.sum, saved: total_saved)
  later = (1...without.size).map { |i| 100.0 * (without[i] - with[i]) / without[i] }
  puts "goal: every request from the second on at least 90% smaller: #{later.min >= 90 ? 'HOLDS' : 'FAILS'} " \
       "(smallest saving #{format('%.1f', later.min)}%)"
  puts "goal: the answers the same: #{answers_with == answers_without ? 'HOLDS' : 'FAILS'}"
end
