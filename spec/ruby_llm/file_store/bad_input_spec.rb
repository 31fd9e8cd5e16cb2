# frozen_string_literal: true

# Every refusal crosses the native boundary as a named Ruby exception whose message
# names the path or argument: never a panic, never a bare RuntimeError.
RSpec.describe 'Bad input', :native do
  include TmpDirHelper

  let(:store) { RubyLLM.file_store.directory(File.join(tmp_dir, 'store')) }

  def raised(&)
    yield
    nil
  rescue StandardError => e
    e
  end

  it 'refuses a name whose bytes are not UTF-8' do
    name = "caf\xE9.txt".b
    expect { store.write(name, 'x') }.to raise_error(ArgumentError, /is not a path inside the chat's files/)
  end

  it 'names a folder that cannot be created' do
    expect { RubyLLM.file_store.directory('/proc/no-such-process/files') }
      .to raise_error(RubyLLM::FileStore::DiskError, %r{/proc/no-such-process/files})
  end

  it 'refuses up front, in short, a path longer than file systems take; exist? answers false' do
    too_long = ["#{'x' * 300}.txt", (['d' * 200] * 21).join('/'), (['d'] * 129).join('/')]
    too_long.each do |long|
      said = 'at most 4096 bytes, 255 for each part and 128 parts'
      message = %r{\A"[xd/]{100}"… \(\d+ bytes\) is too long for a path: #{said}\z}
      expect { RubyLLM::FileStore.path(long) }.to raise_error(RubyLLM::FileStore::PathTooLongError, message)
      [-> { store.write(long, 'x') }, -> { store.read(long) }, -> { store[long] }, -> { store.find(long) },
       -> { store.delete(long) }, -> { store.list(long) }].each do |call|
        expect(&call).to raise_error(ArgumentError, message)
      end
      expect(store.exist?(long)).to be(false)
      expect(RubyLLM::FileStore::Tools::ReadFile.new(store).call(path: long).length).to be < 250
    end
    expect(Dir.children(store.local_root)).to be_empty
  end

  it 'names a path that runs through a symbolic link' do
    FileUtils.ln_s(tmp_dir, File.join(store.local_root, 'escape'))
    expect { store.write('escape/x.txt', 'x') }
      .to raise_error(RubyLLM::FileStore::UnsafePathError, /\Aescape is a symbolic link/)
  end

  it 'names the file a folder was expected at, and the folder a file was expected at' do
    store.write('a/b.txt', 'x')
    expect { store.write('a/b.txt/c', 'x') }.to raise_error(ArgumentError, 'a/b.txt is a file, not a folder')
    expect { store.read('a') }.to raise_error(ArgumentError, 'a is a folder, not a file')
  end

  it 'refuses to use a finished write' do
    writer = RubyLLM::FileStore::Native::Directory.open(store.local_root).writer('w.txt', nil)
    writer.write('x')
    writer.commit
    expect { writer.write('y') }.to raise_error(ArgumentError, 'the write is already finished')
    expect { writer.commit }.to raise_error(ArgumentError, 'the write is already finished')
  end

  it 'refuses a converter plan or a text that is not what the core takes, naming it' do
    native = RubyLLM::FileStore::Native::Directory.open(store.local_root)
    store.write('a.html', '<p>a</p>')
    search = ->(plan, given) { native.search_tree(nil, pattern: 'a', max_matches: 10, plan:, given:) }
    expect { search.call([['text/html', 'html']], []) }.to raise_error(TypeError)
    expect { search.call([[:pdf, [1]]], []) }.to raise_error(TypeError)
    expect { search.call([], [['a.html', nil, nil]]) }.to raise_error(TypeError)
    expect { search.call([], [{ path: 'a.html', text: 5 }]) }.to raise_error(ArgumentError, /given text's text/)
    expect { search.call([], [{ path: 'a.html', txt: 'a' }]) }.to raise_error(ArgumentError, /unknown given text's :txt/)
    expect(search.call([['text/html', %w[html]]], [{ path: 'a.html' }])[:skipped_shown]).to eq([['a.html', 'has no text']])
    expect { native.converted('a.html', %w[word]) }
      .to raise_error(ArgumentError, '"word" is no built-in converter: pdf, office, html')
    expect { native.converted('missing.pdf', %w[pdf]) }.to raise_error(RubyLLM::FileNotFoundError, /missing\.pdf/)
  end

  it 'raises no RuntimeError and no error of an unnamed class anywhere' do
    errors = [
      raised { store.read('../etc/passwd') },
      raised { store.read('nope') },
      raised { store.delete('') },
      raised { store.list('..') },
      raised { store.write('x.txt', Object.new) },
      raised { store.delete_folder(nil) }
    ]
    expect(errors).to all(be_a(StandardError))
    expect(errors.map(&:class)).not_to include(RuntimeError)
    expect(errors.map(&:class).uniq).to contain_exactly(ArgumentError, RubyLLM::FileNotFoundError)
  end

  it 'derives every store error from RubyLLM::Error' do
    expect(RubyLLM::FileStore::DiskError.ancestors).to include(RubyLLM::FileStore::Error, RubyLLM::Error)
    expect(RubyLLM::FileStore::UnsafePathError.ancestors).to include(RubyLLM::FileStore::Error)
  end
end
