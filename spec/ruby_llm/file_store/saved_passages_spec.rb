# frozen_string_literal: true

# The ranked search's index, saved where the store lives (a folder store's hidden
# .ruby_llm_index, an Active Storage store's row of its own) and read back by the next
# store object, in this process or another, instead of reading every file again; never
# a passage of an old version or of another owner, and no file of the store's.
RSpec.describe 'RubyLLM::FileStore ranked search index, saved' do
  # A store object on the same files that can read none of them: a question it
  # answers came from the saved index.
  def reading_nothing(store)
    store.define_singleton_method(:read) { |path| raise "read #{path}" }
    store
  end

  each_shipped_store do
    it 'refuses a path in the gem\'s own folders' do
      ['.ruby_llm_index/passages', '.ruby_llm_removing/x'].each do |path|
        expect { store.write(path, 'x') }.to raise_error(ArgumentError, /is not a path inside the chat's files/)
      end
    end
  end

  shared_examples 'a store that keeps its index' do
    it 'is read back by the next store object, which reads no file again' do
      store.write('manual.md', "# Timeouts\n\nAbort any statement that takes too long.\n")
      store.write('notes.md', "The weather is fine.\n")
      first = store.rank_passages('give up on a statement that runs long')
      expect(first.first[:path]).to eq('manual.md')
      expect(store.list.map(&:path)).to eq(%w[manual.md notes.md])
      expect(reading_nothing(again).rank_passages('give up on a statement that runs long')).to eq(first)
    end

    it 'never gives a passage of a version written or deleted after it was saved' do
      store.write('a.md', "The walrus sleeps.\n")
      store.write('b.md', "The okapi eats.\n")
      expect(store.rank_passages('walrus').size).to eq(1)
      other = again
      other.write('a.md', "The heron waits.\n")
      other.delete('b.md')
      later = again
      expect(later.rank_passages('walrus okapi')).to be_empty
      expect(later.rank_passages('heron').map { |hit| hit[:text] }).to eq(['The heron waits.'])
    end

    it 'builds again from the files where the saved bytes are damaged' do
      store.write('a.md', "The walrus sleeps.\n")
      store.rank_passages('walrus')
      damage
      expect(again.rank_passages('walrus').map { |hit| hit[:path] }).to eq(['a.md'])
    end
  end

  context 'with a folder store' do
    include TmpDirHelper

    let(:root) { File.join(tmp_dir, 'store') }
    let(:store) { RubyLLM.file_store.directory(root) }

    def again = RubyLLM.file_store.directory(root)

    def damage
      saved = File.join(root, '.ruby_llm_index', 'passages')
      File.binwrite(saved, File.binread(saved)[0, 40])
    end

    it_behaves_like 'a store that keeps its index'

    it 'keeps it in a folder of the app\'s own, which no one else may enter' do
      store.write('a.md', "The walrus sleeps.\n")
      store.rank_passages('walrus')
      expect(File.stat(File.join(root, '.ruby_llm_index')).mode & 0o777).to eq(0o700)
      expect(Dir.children(File.join(root, '.ruby_llm_index'))).to eq(['passages'])
    end
  end

  context 'with an Active Storage store', :rails do
    let(:chat) { Chat.create!(model_id: 'gpt-4.1-mini') }
    let(:store) { RubyLLM.file_store.active_storage(chat) }

    def again = RubyLLM.file_store.active_storage(chat)

    def damage
      row = RubyLLM::ActiveRecord::ChatFile.find_by!(chat:, path: RubyLLM::FileStore::Passages::SAVED_PATH)
      row.file.blob.upload(StringIO.new('damaged'))
      row.file.blob.save!
    end

    it_behaves_like 'a store that keeps its index'

    it "keeps one for each owner, and never gives another owner's passage" do
      dana = RubyLLM.file_store.active_storage(chat, owner: User.create!(name: 'Dana'))
      eli = RubyLLM.file_store.active_storage(chat, owner: User.create!(name: 'Eli'))
      dana.write('plan.md', "Dana's secret okapi budget.\n")
      store.write('shared.md', "The okapi project, for all.\n")
      expect(dana.rank_passages('okapi', limit: 10).size).to eq(2)
      expect(eli.rank_passages('okapi', limit: 10).map { |hit| hit[:path] }).to eq(['shared.md'])
      expect(store.rank_passages('okapi secret', limit: 10).map { |hit| hit[:path] }).to eq(['shared.md'])
    end

    it 'is a row no listing or association shows, destroyed with the chat' do
      store.write('a.md', "The walrus sleeps.\n")
      store.rank_passages('walrus')
      expect(store.list.map(&:path)).to eq(['a.md'])
      expect(chat.ruby_llm_chat_files.pluck(:path)).to eq(['a.md'])
      expect(RubyLLM::ActiveRecord::ChatFile.where(chat_id: chat.id).pluck(:path))
        .to contain_exactly('a.md', RubyLLM::FileStore::Passages::SAVED_PATH)
      blobs = ActiveStorage::Blob.count
      chat.destroy
      expect(RubyLLM::ActiveRecord::ChatFile.where(chat_id: chat.id).count).to eq(0)
      expect(ActiveStorage::Blob.count).to eq(blobs - 2)
    end
  end
end
