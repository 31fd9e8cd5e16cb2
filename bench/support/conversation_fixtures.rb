# frozen_string_literal: true

require_relative '../../examples/support/sample_pdf'

# The documents, the tool and the questions of the conversation benchmark, and
# the scripted model that answers them from the passages a request shows.
module ConversationFixtures
  RESULT_SIZE = 30_000

  # Lines of the two documents that questions ask about: [page, line] => text.
  # Each question's passage is the line after its marker, so a model that found
  # the marker with search_files reads on with read_file.
  REPORT_FACTS = {
    [4, 20] => 'Travel budget, see the next line.',
    [4, 21] => 'Each office may spend 2,000 EUR a person a year on travel.',
    [12, 30] => 'Hiring plan, see the next line.',
    [12, 31] => 'Hiring is frozen until the third quarter, except for support.'
  }.freeze
  LETTER_FACTS = {
    [2, 10] => 'Conclusion, see the next line.',
    [2, 11] => 'The accounts give a true and fair view; no material misstatement was found.',
    [3, 40] => 'Signed: M. Okafor, lead auditor, for Northgate Audit LLP.'
  }.freeze

  # The ten questions: what is asked, which document comes with it, and the
  # passage its answer quotes (the line +after+ lines past the one holding
  # +pattern+), or the tool it calls, or a fixed answer.
  QUESTIONS = [
    { ask: 'What does the attached report say about the travel budget?', with: :report,
      pattern: 'Travel budget, see', after: 1 },
    { ask: 'What does chapter 12 say about hiring?', pattern: 'Hiring plan, see', after: 1 },
    { ask: 'Pull the latest sales report', tool: :sales_report },
    { ask: 'Which region grew fastest?' },
    { ask: 'Compare with chapter 3', pattern: 'Chapter 3, line 1:', after: 0 },
    { ask: "Here is the auditor's letter: what does it conclude?", with: :letter,
      pattern: 'Conclusion, see', after: 1 },
    { ask: 'What was the travel budget again?', pattern: 'Travel budget, see', after: 1 },
    { ask: 'Who signed the letter?', pattern: 'Signed:', after: 0 },
    { ask: 'Draft a one-line summary' },
    { ask: 'Thanks, that is all' }
  ].freeze

  module_function

  # A real PDF of +pages+ pages of 45 lines of text, with +facts+ in place of
  # the lines they name, written to +path+.
  def pdf(path, pages:, facts: {})
    SamplePDF.write(path, (1..pages).map do |page|
      (1..45).map do |n|
        facts.fetch([page, n]) { "Chapter #{page}, line #{n}: revenue, budgets and risks by region, in detail." }
      end
    end)
  end

  # Instructions of +bytes+ bytes, as an application's system prompt would be.
  def instructions(bytes)
    rule = 'Answer from the documents; quote the line you rely on, and say where it is. '
    (rule * ((bytes / rule.size) + 1))[0, bytes]
  end

  # The two documents, written into +dir+: { report: path, letter: path }.
  def documents(dir)
    { report: pdf(File.join(dir, 'annual-report.pdf'), pages: 40, facts: REPORT_FACTS),
      letter: pdf(File.join(dir, 'auditor-letter.pdf'), pages: 3, facts: LETTER_FACTS) }
  end

  # The scripted model's turn for question +number+ (from 1): the answer quotes
  # the passage when the request shows it; otherwise the model searches for the
  # marker, then reads around the hit, with the tools the request offers.
  def turn(number, question)
    ScriptedLLMServer.turn do |seen|
      if question[:tool]
        output = seen.last_tool_output
        next text("Answer #{number}: #{output.lines.first.strip}") if output

        next tool_call(SalesReport.new.name)
      end
      next text("Answer #{number}.") unless question[:pattern]

      ConversationFixtures.find(self, seen, number, question)
    end
  end

  # The next step of a question that quotes a passage (runs in the turn's scope).
  def find(replies, seen, number, question)
    pattern = question[:pattern]
    passage = seen.passage(pattern, after: question[:after])
    return replies.text("Answer #{number}: #{passage}") if passage

    step = next_step(seen, pattern)
    step ? replies.tool_call(*step) : replies.text("Answer #{number}: not found")
  end

  # [tool, arguments] to call next for +pattern+ this question: read around a
  # search hit, else search; nil when both were done or are not offered.
  def next_step(seen, pattern)
    hit = seen.search_hit(pattern)
    if hit
      read = { path: hit.first, offset: [hit.last - 2, 1].max, limit: 5 }
      return ['read_file', read] if seen.tool?('read_file') && !seen.called?('read_file', since_question: true, **read)
    end
    return if !seen.tool?('search_files') || seen.called?('search_files', since_question: true, pattern:)

    ['search_files', { pattern:, literal: true }]
  end

  # A tool whose result is RESULT_SIZE characters of report lines.
  class SalesReport < RubyLLM::Tool
    description 'Fetches the latest sales report'

    def execute
      line = 'region %-6<region>s month %<month>02d revenue %<revenue>07d units %<units>05d'
      rows = (0..).lazy.map do |i|
        format(line, region: %w[north south east west][i % 4], month: (i % 12) + 1, revenue: i * 37 % 1_000_000,
                     units: i * 11 % 100_000)
      end
      rows.take(RESULT_SIZE / 60).to_a.join("\n").ljust(RESULT_SIZE, ' ')[0, RESULT_SIZE]
    end
  end
end
