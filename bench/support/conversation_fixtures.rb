# frozen_string_literal: true

require_relative '../../examples/support/sample_pdf'

# The document and the tool of the conversation benchmark.
module ConversationFixtures
  RESULT_SIZE = 30_000

  # A real PDF of +pages+ pages of text, written to +path+.
  def self.pdf(path, pages:)
    SamplePDF.write(path, (1..pages).map do |page|
      (1..45).map { |n| "Chapter #{page}, line #{n}: revenue, budgets and risks by region, in detail." }
    end)
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
