# frozen_string_literal: true

# How much of a reference text another text has: its words, and how many of them
# keep the reference's order.
module WordMatch
  def words(text)
    text.to_s.downcase.scan(/[[:alnum:]]+/)
  end

  # [words of +ref+ found in +ours+, length of the in-order match, words in +ref+].
  def compare(ours, ref)
    positions = Hash.new { |h, k| h[k] = [] }
    ours.each_with_index { |word, i| positions[word] << i }
    seen = Hash.new(0)
    matched = ref.filter_map do |word|
      k = seen[word]
      seen[word] += 1
      positions[word][k] if positions.key?(word)
    end
    [matched.size, longest_increasing(matched), ref.size]
  end

  def longest_increasing(sequence)
    tails = []
    sequence.each do |value|
      at = tails.bsearch_index { |tail| tail >= value } || tails.size
      tails[at] = value
    end
    tails.size
  end
end
