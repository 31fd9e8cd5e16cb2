# frozen_string_literal: true

# Ranked search in words over the Python documentation (Debian's python3.11-doc): how
# often each method puts the file that answers a labelled question first, in its first
# five, and its MRR@10, per kind of question (literal, paraphrase, concept), with index
# and query times. Run by hand from the gem's folder:
#
#   bench/retrieval/setup          # once: python3.11-doc, ripgrep, a venv under tmp/
#   ruby bench/retrieval.rb        # checks the questions' quotes first, then measures
#   ruby bench/retrieval.rb --gem  # the gem's methods and ripgrep alone, no Python
#
# The gem's ranked search runs twice: on words alone, and with all-MiniLM-L6-v2 as
# its embedder (embed_server.py); its first run embeds every passage with numpy (some
# minutes), and the folder store keeps the vectors for the next.
#
# Every method sees the same texts: the store's conversion of each HTML page, cut into
# passages of 200 words for bm25s and the embeddings. The passages' embeddings are
# cached under tmp/retrieval/cache, so a second run skips that index time.

$LOAD_PATH.unshift(File.expand_path('../lib', __dir__))
require_relative '../spec/ruby_llm_path'
RubyLLMPath.load!
require 'ruby_llm/file_store'
require_relative 'retrieval/corpus'
require_relative 'retrieval/methods'
require_relative 'retrieval/questions'
require_relative 'retrieval/scores'

base = File.expand_path('../tmp/retrieval', __dir__)
corpus = RetrievalCorpus.new(base)
corpus.prepare
questions = RetrievalQuestions.load
RetrievalQuestions.check(questions, corpus)

_, convert_seconds = RetrievalMethods.timed { corpus.paths.each { |path| corpus.text(path) } }
puts "corpus: #{corpus.paths.size} pages, #{corpus.passages.size} passages " \
     "(converted in #{format('%.1f', convert_seconds)} s)"
corpus.write_texts

results = {}
results['search_files (regex alternation)'] = RetrievalMethods.search_files(corpus.store, questions)
if system('which rg > /dev/null')
  results['ripgrep (files by matching lines)'] = RetrievalMethods.ripgrep(corpus.texts_root, questions)
else
  puts 'ripgrep is not installed: run bench/retrieval/setup'
end
results.merge!(RetrievalMethods.python(corpus.passages, questions, base)) unless ARGV.include?('--gem')
if corpus.store.respond_to?(:rank_passages)
  store = RubyLLM.file_store.directory(corpus.root)
  results['rank_passages (the gem)'] = RetrievalMethods.rank_passages(store, questions)
  if !ARGV.include?('--gem') && corpus.store.respond_to?(:passages) && defined?(RubyLLM::FileStore::Embeddings)
    minilm = RetrievalMethods::MiniLM.new
    results['rank_passages + MiniLM (the gem)'] = RetrievalMethods.rank_passages_with(store, questions, minilm)
    minilm.close
  end
else
  puts "rank_passages: the gem's ranked search is not in this build"
end

puts
puts RetrievalScores.header
results.each { |name, result| puts RetrievalScores.row(name, result, questions) }
