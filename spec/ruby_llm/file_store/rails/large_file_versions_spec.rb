# frozen_string_literal: true

# Past DIGEST_LIMIT an Active Storage file's version is its size, updated_at and the
# checksum Active Storage keeps on its blob: two writes of one size within one tick
# of updated_at (a whole second on a MySQL DATETIME without fractions), or a row whose
# updated_at was set back, still differ, and a stale write is refused.
RSpec.describe 'Active Storage files past the digest limit', :rails do
  let(:chat) { Chat.create!(model_id: 'gpt-4.1-mini') }
  let(:store) { RubyLLM.file_store.active_storage(chat) }
  let(:lines) { (RubyLLM::FileStore::Reads::DIGEST_LIMIT / 100) + 10_000 }
  let(:reader) { RubyLLM::FileStore::Tools::ReadFile.new(store) }
  let(:writer) { RubyLLM::FileStore::Tools::WriteFile.new(store) }
  let(:editor) { RubyLLM::FileStore::Tools::EditFile.new(store) }
  let(:stale) { 'Error: big.csv changed since it was read. Read it again with read_file before changing it.' }

  def content(char)
    "first,line\n#{"#{char * 99}\n" * lines}"
  end

  before do
    store.write('big.csv', content('x'))
    reader.call(path: 'big.csv')
  end

  it 'refuses a stale write when the row has the same size and updated_at but another blob' do
    row = RubyLLM::ActiveRecord::ChatFile.find_by!(chat_id: chat.id, path: 'big.csv')
    # Another process's store writes the file, in the same tick of updated_at.
    RubyLLM.file_store.active_storage(Chat.find(chat.id)).write('big.csv', content('y'))
    RubyLLM::ActiveRecord::ChatFile.where(id: row.id).update_all(updated_at: row.updated_at)
    expect(store['big.csv'].updated_at).to eq(row.updated_at)
    expect(store['big.csv'].byte_size).to eq(row.byte_size)

    expect(writer.call(path: 'big.csv', content: 'mine')).to eq(stale)
    expect(editor.call(path: 'big.csv', old_text: 'first,line', new_text: 'mine')).to eq(stale)
    expect(store.read('big.csv').byteslice(11, 3)).to eq('yyy')
  end

  it 'lets the model change what it read, and then what it wrote, when nothing else did' do
    row = RubyLLM::ActiveRecord::ChatFile.find_by!(chat_id: chat.id, path: 'big.csv')
    expect(store['big.csv'].stamp).to eq(row.file_blob.checksum)
    expect(editor.call(path: 'big.csv', old_text: 'first,line', new_text: 'first,LINE')).to start_with('Edited big.csv')
    expect(editor.call(path: 'big.csv', old_text: 'first,LINE', new_text: 'FIRST,LINE')).to start_with('Edited big.csv')
    expect(writer.call(path: 'big.csv', content: 'mine')).to start_with('Wrote big.csv')
  end
end
