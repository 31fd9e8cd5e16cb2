# frozen_string_literal: true

# What a folder store says when a write loses a race, when it is given a file for
# its folder, and how fast it answers for a huge file that cannot be text.
RSpec.describe 'The folder store, plainly', :native do
  include TmpDirHelper

  let(:root) { File.join(tmp_dir, 'store') }
  let(:store) { RubyLLM.file_store.directory(root) }

  it 'names the file given for its folder, and a file above it, and leaves the file alone' do
    file = File.join(tmp_dir, 'file.txt')
    File.write(file, 'mine')
    expect { RubyLLM.file_store.directory(file) }
      .to raise_error(ArgumentError, "#{file} is a file, not a folder: a folder store keeps its files in a folder")
    expect { RubyLLM.file_store.directory(File.join(file, 'store')) }
      .to raise_error(ArgumentError, "#{file} is a file, so #{file}/store cannot be a folder for a folder store")
    expect(File.read(file)).to eq('mine')
  end

  it 'says which folder went when a write races delete_folder, and loses no other file' do
    random = Random.new(RSpec.configuration.seed)
    store.write('keep.txt', 'kept')
    errors = []
    writers = Array.new(3) do |t|
      Thread.new do
        200.times do |i|
          store.write("notes/#{t}-#{i % 3}.txt", "v#{i}")
        rescue RubyLLM::FileStore::Error => e
          errors << e
        end
      end
    end
    deleter = Thread.new do
      200.times do
        store.delete_folder('notes')
        sleep(random.rand(0.0..0.0005))
      end
    end
    (writers + [deleter]).each(&:join)
    messages = errors.map(&:message).uniq
    expect(messages).to all(match(%r{\Anotes/\d-\d\.txt was not written: its folder notes was deleted while the write ran\z}))
    expect(errors.map(&:class).uniq - [RubyLLM::FileStore::Error]).to be_empty
    expect(store.read('keep.txt')).to eq('kept')
    expect(store.list('notes').map { |file| store.read(file.path) }).to all(match(/\Av\d+\z/))
  end

  it 'answers text of a 50 GB sparse binary file from its first bytes', :large do
    path = File.join(root, 'disk.img')
    FileUtils.mkdir_p(root)
    File.open(path, 'wb') { |file| file.truncate(50 * (1024**3)) }
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    expect(store.text('disk.img')).to be_nil
    expect(RubyLLM::FileStore::Tools::ReadFile.new(store).call(path: 'disk.img'))
      .to eq('disk.img (application/octet-stream, 50 GB) has no text to read.')
    expect(Process.clock_gettime(Process::CLOCK_MONOTONIC) - started).to be < 1
  end
end
