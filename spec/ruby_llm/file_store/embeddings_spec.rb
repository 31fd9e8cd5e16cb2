# frozen_string_literal: true

require_relative '../../support/scripted_embeddings_server'

# The ranked search in words with embeddings (FileStore::Embeddings), through the
# real RubyLLM.embed against a scripted provider: a question in other words finds
# its passage, each passage is embedded once, a failure leaves the words' ranking
# and is made good on the next question, and no passage of an old version or of
# another owner comes back.
RSpec.describe RubyLLM::FileStore::Embeddings do
  let(:server) { ScriptedEmbeddingsServer.start }
  let(:config) do
    RubyLLM.config.dup.tap do |config|
      server.point(config)
      config.file_store_embeddings = RubyLLM.file_store.embeddings(model: 'text-embedding-3-small')
    end
  end
  let(:answer) { "# Limits\n\nstatement_timeout: abort any statement that exceeds the specified amount.\n" }
  let(:question) { 'how do I make the server stop a query that runs too long' }

  after { server.stop }

  def write_decoys
    store.write('server.md', "# Server\n\nThe server starts on port 5432 and writes a log.\n")
    store.write('query.md', "# Queries\n\nA query returns rows from a table.\n")
  end

  each_shipped_store do
    it 'finds the passage that answers a question sharing none of its words, embedding each passage once' do
      store.write('manual.md', answer)
      write_decoys
      expect(store.rank_passages(question).first[:path]).not_to eq('manual.md')
      expect(store.rank_passages(question, config:).first).to include(path: 'manual.md', first_line: 1, last_line: 3)
      expect(server.texts.count { |text| text.include?('statement_timeout') }).to eq(1)
      expect(server.texts).to include(question)
      embedded = server.texts.size
      expect(store.rank_passages('stop a slow query', config:).first[:path]).to eq('manual.md')
      expect(server.texts.size).to eq(embedded + 1) # the question alone
    end

    it 'embeds again only the passage an edit changed, and never returns an old version' do
      store.write('manual.md', "#{answer}\n# Lunch\n\nLunch is at noon.\n")
      write_decoys
      store.rank_passages(question, config:)
      before = server.texts.size
      store.write('manual.md', store.read('manual.md').sub('Lunch is at noon.', 'A meal is served at noon.'))
      hits = store.rank_passages('when do we eat', config:)
      expect(server.texts[before..]).to eq(["# Lunch\n\nA meal is served at noon.", 'when do we eat'])
      expect(hits.first).to include(path: 'manual.md', text: '# Lunch A meal is served at noon.')
      expect(hits.map { |hit| hit[:text] }.join).not_to include('Lunch is at noon')
      store.delete('manual.md')
      expect(store.rank_passages(question, config:).map { |hit| hit[:path] }).not_to include('manual.md')
    end

    it 'ranks by words while the provider fails, says so, and embeds what is missing on the next question' do
      store.write('manual.md', answer)
      write_decoys
      server.fail_next(1)
      expect(store.rank_passages('abort statement', config:).first[:path]).to eq('manual.md')
      note = store.passages.notes.values.join
      expect(note).to include('ranked by its words alone for now (embedding failed', 'embedded on the next question')
      expect(store.rank_passages(question, config:).first[:path]).to eq('manual.md')
      expect(store.passages.notes).to be_empty
    end

    it 'embeds every passage again for another model, and ranks by words alone without one' do
      store.write('manual.md', answer)
      store.rank_passages(question, config:)
      other = config.dup.tap { |c| c.file_store_embeddings = RubyLLM.file_store.embeddings(model: 'text-embedding-3-large') }
      before = server.texts.size
      store.rank_passages(question, config: other)
      expect(server.texts[before..].count { |text| text.include?('statement_timeout') }).to eq(1)
      plain = config.dup.tap { |c| c.file_store_embeddings = nil }
      before = server.texts.size
      store.rank_passages(question, config: plain)
      expect(server.texts.size).to eq(before)
    end
  end

  context "with an embedder of the app's own, stopped by an interrupt" do
    let(:store) { RubyLLM.file_store.memory }

    it 'embeds on the next question what the interrupted one left' do
      calls = []
      embedder = Object.new
      embedder.define_singleton_method(:name) { 'app:concepts' }
      embedder.define_singleton_method(:embed) do |texts|
        calls << texts
        raise Timeout::Error, 'the request timed out' if calls.size == 2

        texts.map { |text| ScriptedEmbeddingsServer.vector(text) }
      end
      config = RubyLLM.config.dup.tap { |c| c.file_store_embeddings = embedder }
      store.write('manual.md', answer)
      store.write('server.md', "# Server\n\nThe server starts on port 5432.\n")
      expect { store.rank_passages(question, config:) }.to raise_error(Timeout::Error)
      expect(store.rank_passages(question, config:).first[:path]).to eq('manual.md')
      expect(calls.flatten.count { |text| text.include?('statement_timeout') }).to eq(1)
      expect(calls.flatten.count { |text| text.include?('5432') }).to eq(2)
    end
  end

  context 'with a folder store saved by another store object' do
    include TmpDirHelper

    it 'reads the vectors back instead of embedding the passages again' do
      first = RubyLLM.file_store.directory(File.join(tmp_dir, 'store'))
      first.write('manual.md', answer)
      first.rank_passages(question, config:)
      before = server.texts.size
      second = RubyLLM.file_store.directory(File.join(tmp_dir, 'store'))
      expect(second.rank_passages(question, config:).first[:path]).to eq('manual.md')
      expect(server.texts[before..]).to eq([question])
    end
  end

  context 'with an Active Storage store', :rails do
    it "never returns another owner's passage, by words or by meaning" do
      mine = RubyLLM.file_store.active_storage(Chat.create!(model_id: 'gpt-4.1-mini'))
      theirs = RubyLLM.file_store.active_storage(Chat.create!(model_id: 'gpt-4.1-mini'))
      mine.write('plan.md', "Our lunch is at noon.\n")
      theirs.write('plan.md', answer)
      theirs.rank_passages(question, config:)
      hits = mine.rank_passages(question, config:, limit: 100)
      expect(hits.map { |hit| hit[:text] }).to eq(['Our lunch is at noon.']).or eq([])
      expect(hits.map { |hit| hit[:text] }.join).not_to include('statement_timeout')
    end
  end

  context 'with a file of more passages than a file has embedded' do
    let(:store) { RubyLLM.file_store.memory }

    it 'embeds the first ones in batches, ranks the rest by their words, and says so' do
      most = described_class::MAX_PASSAGES_PER_FILE
      store.write('many.md', (1..most + 5).map { |n| "# Part #{n}\n\nThe walrus number #{n} sleeps.\n" }.join("\n"))
      store.rank_passages('walrus', config:)
      expect(server.inputs.map(&:size).max).to eq(described_class::BATCH)
      expect(server.texts.size).to eq(most + 1) # and the question
      expect(store.passages.notes['many.md']).to eq("only its first #{most} passages are embedded; the rest rank by their words")
      expect(store.rank_passages('walrus number 2004 sleeps', config:).first[:text]).to include('walrus number 2004')
    end
  end

  it 'gives the vectors RubyLLM.embed returns, one for each text' do
    server.point(RubyLLM.config)
    embedder = RubyLLM.file_store.embeddings(model: 'text-embedding-3-small')
    expect(embedder.name).to eq('ruby_llm:text-embedding-3-small')
    expect(embedder.embed(['abort it', 'lunch'])).to eq([ScriptedEmbeddingsServer.vector('abort it'),
                                                         ScriptedEmbeddingsServer.vector('lunch')])
  ensure
    RubyLLM.config.openai_api_base = nil
  end
end
