# frozen_string_literal: true

require 'tmpdir'

# A read of a file past DIGEST_LIMIT does not hash all of it, so the version it
# records is the file's size, time of change and stamp: a change by another program
# that keeps the size and sets the mtime back (cp -p, rsync -t), or falls within one
# tick of a coarse clock, is still a change, and the model's write is refused.
RSpec.describe 'Tools on a folder file past the digest limit', :large, :native do
  around do |example|
    Dir.mktmpdir { |dir| @dir = dir and example.run }
  end

  let(:store) { RubyLLM.file_store.directory(@dir) }
  let(:path) { File.join(@dir, 'big.csv') }
  let(:lines) { (RubyLLM::FileStore::Reads::DIGEST_LIMIT / 100) + 10_000 }
  let(:reader) { RubyLLM::FileStore::Tools::ReadFile.new(store) }
  let(:writer) { RubyLLM::FileStore::Tools::WriteFile.new(store) }
  let(:editor) { RubyLLM::FileStore::Tools::EditFile.new(store) }
  let(:stale) { 'Error: big.csv changed since it was read. Read it again with read_file before changing it.' }

  # About 17 MB: a first line to edit, then lines of 100 bytes.
  def content(char = 'x')
    "first,line\n#{"#{char * 99}\n" * lines}"
  end

  # Runs the block, which changes the file as another program does, then sets the
  # file's mtime back; its size is kept.
  def behind_the_model
    time = File.mtime(path)
    # One tick of the coarse clock the kernel stamps ctime with.
    sleep 0.02
    yield
    File.utime(File.atime(path), time, path)
    expect([File.mtime(path), File.size(path)]).to eq([time, content.bytesize])
  end

  def refuses_both
    expect(writer.call(path: 'big.csv', content: 'mine')).to eq(stale)
    expect(editor.call(path: 'big.csv', old_text: 'first,line', new_text: 'mine')).to eq(stale)
  end

  before do
    store.write('big.csv', content)
    reader.call(path: 'big.csv')
  end

  it 'refuses to change it after a rewrite in place of the same size, its mtime restored' do
    behind_the_model { File.binwrite(path, content('y')) }
    refuses_both
    expect(File.binread(path, 100, 11)).to eq("#{'y' * 99}\n")
  end

  it 'refuses to change it after a change of a middle line only, its mtime restored' do
    behind_the_model { File.open(path, 'r+b') { |file| file.pwrite("#{'y' * 99}\n", 11 + (100 * (lines / 2))) } }
    refuses_both
  end

  it 'refuses to change it after a replacement of the same bytes, its mtime restored (rsync -t)' do
    behind_the_model do
      File.binwrite("#{path}.tmp", content)
      File.rename("#{path}.tmp", path)
    end
    refuses_both
  end

  it 'lets the model change what it read, and then what it wrote, when nothing else did' do
    expect(editor.call(path: 'big.csv', old_text: 'first,line', new_text: 'first,LINE')).to start_with('Edited big.csv')
    expect(editor.call(path: 'big.csv', old_text: 'first,LINE', new_text: 'FIRST,LINE')).to start_with('Edited big.csv')
    expect(writer.call(path: 'big.csv', content: 'mine')).to start_with('Wrote big.csv')
  end
end
