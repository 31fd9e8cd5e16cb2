# frozen_string_literal: true

# recall@1, recall@5 and MRR@10 at the file level, per kind of question, and a
# method's times, as table rows.
module RetrievalScores
  def self.rank(files, path) = files.first(10).index(path)

  def self.per_kind(result, questions, kind)
    ranks = questions.each_index.select { |i| questions[i][:kind] == kind }
                     .map { |i| rank(result[:files][i], questions[i][:path]) || 10 }
    n = ranks.size.to_f
    [ranks.count(0) / n, ranks.count { |r| r < 5 } / n, ranks.sum { |r| r < 10 ? 1.0 / (r + 1) : 0.0 } / n]
  end

  def self.percentile(values, fraction)
    sorted = values.sort
    sorted[((sorted.size - 1) * fraction).round]
  end

  def self.row(name, result, questions)
    kinds = RetrievalQuestions::KINDS.map do |kind|
      per_kind(result, questions, kind).map { |v| format('%.2f', v) }.join(' / ')
    end
    times = result[:query_seconds]
    index = result[:index_cached] ? 'cached' : format('%.1f s', result[:index_seconds])
    "| #{name} | #{kinds.join(' | ')} | #{index} | " \
      "#{format('%.1f', percentile(times, 0.5) * 1000)} / #{format('%.1f', percentile(times, 0.95) * 1000)} ms |"
  end

  def self.header
    ['| method | literal R@1 / R@5 / MRR | paraphrase R@1 / R@5 / MRR | concept R@1 / R@5 / MRR | ' \
     'index | query median / p95 |',
     '| --- | --- | --- | --- | --- | --- |']
  end
end
