# frozen_string_literal: true

require 'timeout'

RSpec.describe RubyLLM::FileStore::Directory, :native do
  include TmpDirHelper

  let(:root) { File.join(tmp_dir, 'store') }
  let(:store) { described_class.new(root) }
  let(:outside) { File.join(tmp_dir, 'outside').tap { |dir| FileUtils.mkdir_p(dir) } }

  it_behaves_like 'a RubyLLM file store'

  it 'creates its folder and reports it as local_root' do
    expect(store.local_root).to eq(File.expand_path(root))
    expect(File.directory?(root)).to be(true)
  end

  it 'reads files someone else put in its folder' do
    FileUtils.mkdir_p(File.join(root, 'in'))
    File.write(File.join(root, 'in/dropped.csv'), "a,b\n")
    expect(store.list.map { |file| [file.path, file.content_type] }).to eq([['in/dropped.csv', 'text/csv']])
  end

  it 'leaves out hidden files and folders, and refuses to write one' do
    FileUtils.mkdir_p(File.join(root, '.git'))
    File.write(File.join(root, '.git/config'), 'x')
    File.write(File.join(root, '.env'), 'SECRET=1')
    store.write('seen.txt', 'x')
    store.with_lock { nil }
    expect(store.list.map(&:path)).to eq(['seen.txt'])
    expect(store['.env']).to be_nil
    expect { store.read('.env') }.to raise_error(RubyLLM::FileNotFoundError)
    expect { store.write('.env', 'x') }.to raise_error(ArgumentError, /\.env is hidden/)
  end

  describe 'symbolic links' do
    before do
      File.write(File.join(outside, 'secret.txt'), 'secret')
      store
      File.symlink(File.join(outside, 'secret.txt'), File.join(root, 'link.txt'))
      File.symlink(outside, File.join(root, 'linked'))
    end

    it 'neither lists nor reads through a link' do
      expect(store.list).to be_empty
      expect(store.list('linked')).to be_empty
      expect(store['link.txt']).to be_nil
      expect { store.read('link.txt') }.to raise_error(RubyLLM::FileNotFoundError)
      expect { store.read('linked/secret.txt') }.to raise_error(RubyLLM::FileNotFoundError)
    end

    it 'never writes or deletes through a link' do
      expect { store.write('linked/new.txt', 'x') }
        .to raise_error(RubyLLM::FileStore::UnsafePathError,
                        'linked is a symbolic link, which the store does not follow')
      expect(store.delete('linked/secret.txt')).to be_nil
      expect(store.delete('link.txt')).to be_nil
      expect(Dir.children(outside)).to eq(['secret.txt'])
      expect(File.read(File.join(outside, 'secret.txt'))).to eq('secret')
    end

    it 'never follows a link swapped in while reads run' do
      FileUtils.mkdir_p(File.join(root, 'swap'))
      File.write(File.join(root, 'swap/secret.txt'), 'mine')
      swapper = Thread.new do
        # Under GC.stress every swap is slow; a few still race the reads.
        (ENV['STRESS'] ? 3 : 200).times do
          FileUtils.rm_rf(File.join(root, 'swap'))
          File.symlink(outside, File.join(root, 'swap'))
          File.unlink(File.join(root, 'swap'))
          FileUtils.mkdir_p(File.join(root, 'swap'))
          File.write(File.join(root, 'swap/.tmp'), 'mine')
          File.rename(File.join(root, 'swap/.tmp'), File.join(root, 'swap/secret.txt'))
        end
      end
      seen = []
      seen << (store.read('swap/secret.txt') rescue nil) while swapper.alive? # rubocop:disable Style/RescueModifier
      swapper.join
      seen << store.read('swap/secret.txt')
      expect(seen.compact.uniq).to eq(['mine'])
    end
  end

  it 'writes atomically: a reader sees the old file or the new one, never part' do
    old = 'a' * 4_000_000
    new = 'b' * 4_000_000
    store.write('big.txt', old)
    writer = Thread.new { 20.times { |i| store.write('big.txt', i.even? ? new : old) } }
    reads = []
    reads << store.read('big.txt') while writer.alive?
    writer.join
    reads << store.read('big.txt')
    expect(reads.map { |content| content == old || content == new }.uniq).to eq([true])
    expect(Dir.children(root)).to eq(['big.txt'])
  end

  it 'writes what an IO returns when it does not fill the buffer it is given' do
    chunks = ['a' * 1_200_000, 'b' * 1_200_000]
    io = Object.new
    io.define_singleton_method(:read) { |_length = nil, _buffer = nil| chunks.shift }
    expect(store.write('doc.txt', io).byte_size).to eq(2_400_000)
    expect(store.read('doc.txt')).to eq(('a' * 1_200_000) + ('b' * 1_200_000))
  end

  it 'removes the temporary file of a streamed write whose thread is killed' do
    store.write('doc.txt', 'old')
    reader, writer = IO.pipe
    writer.write('x' * 10_000)
    writing = Thread.new { store.write('doc.txt', reader) }
    sleep 0.05 until Dir.children(root).size == 2 || !writing.alive?
    writing.kill.join
    expect(store.read('doc.txt')).to eq('old')
    expect(Dir.children(root)).to eq(['doc.txt'])
  ensure
    [reader, writer].each { |io| io&.close }
  end

  it 'leaves the old file whole when a write from an IO fails' do
    store.write('doc.txt', 'old')
    failing = Object.new
    def failing.read(*)
      @calls = (@calls || 0) + 1
      raise IOError, 'the upload broke' if @calls > 1

      +'partial'
    end
    expect { store.write('doc.txt', failing) }.to raise_error(IOError, 'the upload broke')
    expect(store.read('doc.txt')).to eq('old')
    expect(Dir.children(root)).to eq(['doc.txt'])
  end

  it 'locks across processes, so read-modify-write cycles do not interleave' do
    store.write('counter.txt', '0')
    pids = Array.new(2) do
      fork do
        other = described_class.new(root)
        50.times do
          other.with_lock do
            value = other.read('counter.txt').to_i
            sleep 0.0005
            other.write('counter.txt', (value + 1).to_s)
          end
        end
        exit!(0)
      end
    end
    statuses = pids.map { |pid| Process.wait2(pid).last }
    expect(statuses).to all(be_success)
    expect(store.read('counter.txt')).to eq('100')
  end

  it 'locks on the folder itself: nothing deleted, replaced or planted in it lets a second holder in' do
    reader, writer = IO.pipe
    holder = fork do
      described_class.new(root).with_lock do
        writer.puts('held')
        sleep 30
      end
    end
    reader.gets
    FileUtils.rm_rf(Dir.glob(File.join(root, '{*,.[!.]*}')))
    File.symlink('/dev/null', File.join(root, '.ruby_llm_file_store.lock'))
    other = described_class.new(root)
    expect { Timeout.timeout(0.3) { other.with_lock { nil } } }.to raise_error(Timeout::Error)
    threaded = Thread.new { described_class.new(root).with_lock { :entered } }
    expect(threaded.join(0.3)).to be_nil
    Process.kill(:KILL, holder)
    Process.wait(holder)
    expect(threaded.value).to eq(:entered)
    expect(Dir.children(root)).to eq(['.ruby_llm_file_store.lock'])
  end

  it 'keeps a content type given to write, from a String or an IO, and detects it when none is given' do
    expect(store.write('data', '{}', content_type: 'application/json').content_type).to eq('application/json')
    expect(store.write('feed', StringIO.new('<rss/>'), content_type: 'application/rss+xml').content_type)
      .to eq('application/rss+xml')
    reopened = described_class.new(root)
    expect(reopened['data'].content_type).to eq('application/json')
    expect(reopened.list.map(&:content_type)).to eq(%w[application/json application/rss+xml])
    store.write('data', '{}')
    expect(reopened['data'].content_type).to eq('text/plain')
  end

  it 'drops a kept content type once another program rewrites the file in place' do
    store.write('data', '{"a": 1}', content_type: 'application/json')
    # The type stays with the inode, which a rewrite in place keeps.
    File.open(File.join(root, 'data'), 'r+b') do |file|
      file.truncate(0)
      file.write('%PDF-1.4 a document now')
    end
    expect(store['data'].content_type).to eq('application/pdf')
    expect(store.list.map(&:content_type)).to eq(['application/pdf'])
  end

  it 'computes a listed file digest when asked' do
    store.write('a.txt', 'abc')
    expect(store.list.first.digest).to eq(Digest::SHA256.hexdigest('abc'))
  end
end
