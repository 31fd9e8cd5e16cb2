# frozen_string_literal: true

# FileStore#rank_passages on every shipped store: the answering passage first, and
# never a passage of an old version or of another owner.
RSpec.describe 'RubyLLM::FileStore#rank_passages' do
  let(:manual) do
    filler = (1..40).map { |n| "Setting number #{n} changes how the server logs its work." }
    "# Server manual\n\n#{filler.join("\n")}\n\n## Limits\n\n" \
      "statement_timeout: abort any statement that takes more than the specified amount of time.\n"
  end

  each_shipped_store do
    it 'puts the passage that answers a question in other words first, with its lines' do
      store.write('manual.md', manual)
      store.write('notes.md', "A query about the weather.\nNothing else.\n")
      hit = store.rank_passages('how do I make the server give up on a statement that runs too long?').first
      expect(hit).to include(path: 'manual.md', first_line: 44, last_line: 46)
      expect(hit[:text]).to include('abort any statement')
      expect(hit[:score]).to be_a(Float)
    end

    it 'tries a file again on the next question when its converter failed, not the document' do
      failures = 1
      converter = lambda do |_|
        raise 'the converter is out of memory' if (failures -= 1) >= 0

        'Quarterly revenue of the walrus division rose.'
      end
      config = Struct.new(:file_converters).new(
        RubyLLM::FileStore::Converters.defaults.merge('application/x-report' => converter)
      )
      store.write('q3.report', 'bytes', content_type: 'application/x-report')
      RubyLLM::FileStore.raise_converter_errors = false
      expect(store.rank_passages('walrus revenue', config:)).to be_empty
      expect(store.passages.notes['q3.report']).to include('not converted', 'tried again on the next question')
      expect(store.rank_passages('walrus revenue', config:).map { |hit| hit[:path] }).to eq(['q3.report'])
      expect(store.passages.notes).to be_empty
    ensure
      RubyLLM::FileStore.raise_converter_errors = nil
    end

    it 'never returns a passage of a version written over, edited or deleted' do
      store.write('a.md', "The walrus sleeps.\n")
      expect(store.rank_passages('walrus').map { |h| h[:path] }).to eq(['a.md'])
      store.write('a.md', "The penguin swims.\n")
      expect(store.rank_passages('walrus')).to be_empty
      expect(store.rank_passages('penguin').first).to include(path: 'a.md', text: 'The penguin swims.')
      store.write('a.md', store.read('a.md').sub('penguin', 'tapir'))
      expect(store.rank_passages('penguin')).to be_empty
      store.delete('a.md')
      expect(store.rank_passages('tapir')).to be_empty
    end

    it 'ranks a converted document by its text, and by its new text once it is replaced' do
      store.write('contract.pdf', File.binread('spec/fixtures/contract-v1.pdf'))
      expect(store.rank_passages('terminate 30 days notice').first[:path]).to eq('contract.pdf')
      expect(store.rank_passages('immediately')).to be_empty
      store.write('contract.pdf', File.binread('spec/fixtures/contract-v2.pdf'))
      expect(store.rank_passages('30')).to be_empty
      hit = store.rank_passages('termination immediately').first
      lines = store.text('contract.pdf').lines[(hit[:first_line] - 1)..(hit[:last_line] - 1)].join.gsub(/\s+/, ' ')
      expect(lines).to include('60 days written notice; termination for cause takes effect immediately')
    end

    it 'leaves out files with no text' do
      store.write('chart.png', File.binread('spec/fixtures/chart.png'))
      store.write('blob.bin', "zebra\0zebra".b)
      expect(store.rank_passages('zebra')).to be_empty
    end
  end

  context 'with an Active Storage store', :rails do
    it "never returns another owner's passage" do
      mine = RubyLLM.file_store.active_storage(Chat.create!(model_id: 'gpt-4.1-mini'))
      theirs = RubyLLM.file_store.active_storage(Chat.create!(model_id: 'gpt-4.1-mini'))
      mine.write('plan.md', "Our budget for the okapi project.\n")
      theirs.write('plan.md', "Their secret okapi budget.\n")
      theirs.write('other.md', "More okapi secrets.\n")
      expect(mine.rank_passages('okapi budget', limit: 100).map { |h| h[:text] })
        .to eq(['Our budget for the okapi project.'])
    end

    it 'sees a change made through another store object on the same owner' do
      chat = Chat.create!(model_id: 'gpt-4.1-mini')
      first = RubyLLM.file_store.active_storage(chat)
      first.write('a.md', "The walrus sleeps.\n")
      expect(first.rank_passages('walrus').size).to eq(1)
      RubyLLM.file_store.active_storage(chat).write('a.md', "The heron waits.\n")
      expect(first.rank_passages('walrus')).to be_empty
      expect(first.rank_passages('heron').size).to eq(1)
    end
  end

  context 'with a file past the bound of text indexed a file', :slow do
    let(:store) { RubyLLM.file_store.memory }

    it 'ranks its start, leaves out the rest, and search_files says so' do
      line = "alpha beta gamma delta epsilon\n\n"
      store.write('big.md', "#{line * ((RubyLLM::FileStore::Native::MAX_INDEX_FILE_BYTES / line.bytesize) + 10)}omega\n")
      store.write('small.md', "alpha and omega\n")
      expect(store.rank_passages('omega', limit: 100).map { |h| h[:path] }).to eq(['small.md'])
      answer = RubyLLM::FileStore::Tools::SearchFiles.new(store).call(question: 'gamma')
      expect(answer).to include('[Not every passage is ranked: big.md: only its first 16777216 bytes are indexed')
    end
  end

  context 'when a search is interrupted', :slow do
    let(:store) { RubyLLM.file_store.memory }

    it 'answers the next one in full, with nothing held' do
      300.times { |n| store.write("f#{n}.md", "# Note #{n}\n\n#{'filler words here ' * 400}kiwi#{n}\n") }
      [0.001, 0.005, 0.02].each do |seconds|
        Timeout.timeout(seconds) { store.rank_passages('kiwi7 filler') }
      rescue Timeout::Error
        nil
      end
      store.write('f7.md', "# Note 7\n\nkiwi7 rewritten\n")
      expect(store.rank_passages('kiwi7').map { |h| h.slice(:path, :text) })
        .to eq([{ path: 'f7.md', text: '# Note 7 kiwi7 rewritten' }])
    end
  end
end
