# frozen_string_literal: true

require 'json'

# The labelled questions: each has a kind, its answering file and a quote from that
# file's text. check fails, naming them, on entries whose quote the text lacks.
module RetrievalQuestions
  FILE = File.join(__dir__, 'questions.json')
  KINDS = %w[literal paraphrase concept].freeze

  def self.load
    JSON.parse(File.read(FILE), symbolize_names: true)
  end

  def self.check(questions, corpus)
    bad = questions.each_with_index.filter_map do |entry, index|
      why = problem(entry, corpus)
      "##{index} #{entry[:question].inspect} (#{entry[:path]}): #{why}" if why
    end
    abort "#{bad.size} bad question(s) in #{FILE}:\n#{bad.join("\n")}" unless bad.empty?
    counts = KINDS.map { |kind| "#{questions.count { |q| q[:kind] == kind }} #{kind}" }.join(', ')
    puts "questions: #{questions.size} checked (#{counts})"
  end

  def self.problem(entry, corpus)
    return "unknown kind #{entry[:kind].inspect}" unless KINDS.include?(entry[:kind])
    return 'no such file in the corpus' unless corpus.paths.include?(entry[:path])

    'quote not in the file\'s text' unless squeeze(corpus.text(entry[:path])).include?(squeeze(entry[:quote]))
  end

  # Line breaks in the converted text fall where the HTML put them.
  def self.squeeze(text) = text.split.join(' ')
end
