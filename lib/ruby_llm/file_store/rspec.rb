# frozen_string_literal: true

require 'digest/sha2'
require 'stringio'
require 'tempfile'

# The contract every RubyLLM::FileStore keeps. A store of your own runs it with:
#
#   require "ruby_llm/file_store/rspec"
#
#   RSpec.describe BucketStore do
#     it_behaves_like "a RubyLLM file store" do
#       let(:store) { BucketStore.new(bucket, "test/") }
#     end
#   end
#
# Examples tagged +:large+ write a 200 MB file; exclude them with
# <tt>--tag ~large</tt> on a store where that is slow.
#
# What it asks of a store beyond the obvious:
# - Paths arrive as callers give them ("./reports//q3.md", "reports\\q3.md", "../x"):
#   each method passes its path through RubyLLM::FileStore.path, which returns the
#   normal form or raises the ArgumentError the contract expects, as the stores here do.
# - Content types are exactly those RubyLLM::FileStore.content_type(path, first_bytes)
#   gives: a store that does not keep a type it was given calls it on write.

# A failing example shows its own line of this file: RSpec shows the first line of a
# backtrace in the project's source folders, and filters installed gems out of
# backtraces, so without these it would show a line of RSpec's own.
RSpec.configure do |config|
  config.project_source_dirs << __dir__
  config.backtrace_inclusion_patterns << /\A#{Regexp.escape(__FILE__)}:/
end

RSpec.shared_examples 'a RubyLLM file store' do
  def refusal(name)
    "#{name.inspect} is not a path inside the chat's files"
  end

  describe 'paths' do
    it 'normalises a path with a leading ./ or / and repeated slashes' do
      file = store.write('./reports//q3.md', 'q3')
      expect(file.path).to eq('reports/q3.md')
      expect(store.read('/reports/q3.md')).to eq('q3')
      expect(store['reports\\q3.md'].path).to eq('reports/q3.md')
    end

    it 'refuses paths that leave the store, with the name in the message' do
      ['../x', 'a/../../x', '', '/', 'a/./b', "x\0y", "line\nbreak", nil].each do |bad|
        %i[read find delete].each do |method|
          expect { store.public_send(method, bad) }.to raise_error(ArgumentError, refusal(bad))
        end
        expect { store.write(bad, 'x') }.to raise_error(ArgumentError, refusal(bad))
      end
      expect(store.list).to be_empty
    end

    it 'keeps names that merely contain dots, brackets or non-ASCII letters' do
      ['[...nextauth].ts', 'v1..2.txt', 'résumé/日本語 ✓.md', 'a b/c d.txt'].each do |name|
        store.write(name, name)
        expect(store.read(name).force_encoding('UTF-8')).to eq(name)
      end
      expect(store.list.map(&:path)).to eq(['[...nextauth].ts', 'a b/c d.txt', 'résumé/日本語 ✓.md', 'v1..2.txt'])
    end
  end

  describe 'writing and reading' do
    it 'returns the StoredFile it wrote' do
      file = store.write('notes/plan.md', '# Plan')
      expect(file).to be_a(RubyLLM::StoredFile)
      expect([file.path, file.filename, file.byte_size]).to eq(['notes/plan.md', 'plan.md', 6])
      expect(file.content_type).to eq('text/markdown')
      expect(file.digest).to eq(Digest::SHA256.hexdigest('# Plan'))
      expect(file.updated_at).to be_a(Time)
    end

    it 'reads back a binary String with every byte value' do
      bytes = (0..255).map(&:chr).join.b * 3
      store.write('bytes.bin', bytes)
      read = store.read('bytes.bin')
      expect(read.encoding).to eq(Encoding::BINARY)
      expect(read).to eq(bytes)
    end

    it 'keeps UTF-8 text byte for byte' do
      store.write('thai.md', 'ภาษาไทย 日本語')
      expect(store.read('thai.md').force_encoding('UTF-8')).to eq('ภาษาไทย 日本語')
    end

    it 'keeps an empty file' do
      file = store.write('empty.txt', '')
      expect(file.byte_size).to eq(0)
      expect(store.read('empty.txt')).to eq('')
      expect(store.list.map(&:path)).to eq(['empty.txt'])
    end

    it 'writes from an IO' do
      store.write('from_io.txt', StringIO.new('streamed'))
      expect(store.read('from_io.txt')).to eq('streamed')
    end

    it 'refuses content that is neither a String nor an IO, naming the path' do
      expect { store.write('n.txt', 42) }.to raise_error(ArgumentError, /n\.txt/)
      expect(store.exist?('n.txt')).to be(false)
    end

    it 'replaces a file, and its digest follows the content' do
      first = store.write('doc.txt', 'one')
      second = store.write('doc.txt', 'two!')
      expect(store.read('doc.txt')).to eq('two!')
      expect(second.digest).not_to eq(first.digest)
      expect(store['doc.txt'].digest).to eq(Digest::SHA256.hexdigest('two!'))
      expect(store['doc.txt'].byte_size).to eq(4)
      expect(store.list.map(&:path)).to eq(['doc.txt'])
    end

    it 'detects content types from the name, and from the bytes when the name says nothing' do
      store.write('report.pdf', "%PDF-1.7\n")
      store.write('data.json', '{}')
      store.write('table.csv', "a,b\n")
      store.write('scan', "\x89PNG\r\n\x1a\n\0\0\0\rIHDR".b)
      store.write('README', 'plain words')
      types = store.list.to_h { |file| [file.path, file.content_type] }
      expect(types).to eq('README' => 'text/plain', 'data.json' => 'application/json',
                          'report.pdf' => 'application/pdf', 'scan' => 'image/png', 'table.csv' => 'text/csv')
      store.list.each do |file|
        expect(RubyLLM::FileStore.content_type(file.path, store.read(file.path))).to eq(file.content_type)
      end
    end

    it 'raises FileNotFoundError for a missing file' do
      expect { store.read('missing.txt') }.to raise_error(RubyLLM::FileNotFoundError, 'No file at missing.txt')
      expect { store.find('./missing.txt') }.to raise_error(RubyLLM::FileNotFoundError, 'No file at missing.txt')
      expect(store['missing.txt']).to be_nil
      expect(store.exist?('missing.txt')).to be(false)
    end

    it 'keeps files and folders apart' do
      store.write('reports/q3.pdf', '%PDF')
      expect { store.write('reports', 'x') }.to raise_error(ArgumentError, /reports is a folder/)
      expect { store.write('reports/q3.pdf/x', 'x') }.to raise_error(ArgumentError, %r{reports/q3\.pdf is a file})
      expect(store['reports']).to be_nil
      expect(store.read('reports/q3.pdf')).to eq('%PDF')
    end

    it 'writes and reads back a 200 MB file from an IO', :large do
      Tempfile.create('large', binmode: true) do |io|
        chunk = Random.new(7).bytes(1024 * 1024)
        200.times { io.write(chunk) }
        io.flush
        io.rewind
        file = store.write('large.bin', io)
        expect(file.byte_size).to eq(200 * 1024 * 1024)
        content = store.read('large.bin')
        expect(content.bytesize).to eq(200 * 1024 * 1024)
        expect(Digest::SHA256.hexdigest(content)).to eq(Digest::SHA256.file(io.path).hexdigest)
        expect(store['large.bin'].digest).to eq(Digest::SHA256.file(io.path).hexdigest)
      end
    end
  end

  describe 'listing' do
    before do
      %w[reports/q3.pdf b.txt reports/sub/x.md rep.txt a.txt].each { |path| store.write(path, path) }
    end

    it 'lists every file sorted by path' do
      expect(store.list.map(&:path)).to eq(%w[a.txt b.txt rep.txt reports/q3.pdf reports/sub/x.md])
    end

    it 'treats a prefix as a folder' do
      expect(store.list('reports').map(&:path)).to eq(%w[reports/q3.pdf reports/sub/x.md])
      expect(store.list('./reports/').map(&:path)).to eq(%w[reports/q3.pdf reports/sub/x.md])
      expect(store.list('rep')).to eq([])
      expect(store.list('a.txt')).to eq([])
      expect(store.list('missing')).to eq([])
    end

    it 'refuses a prefix that leaves the store' do
      expect { store.list('../') }.to raise_error(ArgumentError, refusal('../'))
    end

    it 'gives the first files of a listing and how many there are' do
      files, total = store.list_first(2)
      expect([files.map(&:path), total]).to eq([%w[a.txt b.txt], 5])
      files, total = store.list_first(10, 'reports')
      expect([files.map(&:path), total]).to eq([%w[reports/q3.pdf reports/sub/x.md], 2])
      expect(store.list_first(0)).to eq([[], 5])
      expect(store.list_first(3, 'missing')).to eq([[], 0])
      expect { store.list_first(1, '../') }.to raise_error(ArgumentError, refusal('../'))
    end

    it 'yields each file as list returns them' do
      expect(store.each.map(&:path)).to eq(store.list.map(&:path))
      expect(store.map(&:path).first).to eq('a.txt')
    end
  end

  describe 'deleting' do
    it 'deletes a file and returns it, then nil' do
      store.write('notes/plan.md', '# Plan')
      deleted = store.delete('notes/plan.md')
      expect(deleted.path).to eq('notes/plan.md')
      expect(store.exist?('notes/plan.md')).to be(false)
      expect(store.delete('notes/plan.md')).to be_nil
      expect(store.list).to be_empty
    end

    it 'refuses to delete a folder as a file' do
      store.write('reports/q3.pdf', '%PDF')
      expect { store.delete('reports') }.to raise_error(ArgumentError, /reports is a folder/)
      expect(store.exist?('reports/q3.pdf')).to be(true)
    end

    it 'deletes a folder and returns what it held, sorted' do
      %w[reports/b.txt reports/a/c.txt rep.txt].each { |path| store.write(path, 'x') }
      expect(store.delete_folder('reports').map(&:path)).to eq(%w[reports/a/c.txt reports/b.txt])
      expect(store.list.map(&:path)).to eq(['rep.txt'])
      expect(store.delete_folder('reports')).to eq([])
    end

    it 'refuses to delete a file as a folder' do
      store.write('rep.txt', 'x')
      expect { store.delete_folder('rep.txt') }.to raise_error(ArgumentError, /rep\.txt is a file/)
      expect(store.exist?('rep.txt')).to be(true)
    end
  end

  describe 'text' do
    it 'returns a text file as it is, as UTF-8' do
      store.write('notes.md', '# Über')
      text = store.text('notes.md')
      expect(text).to eq('# Über')
      expect(text.encoding).to eq(Encoding::UTF_8)
    end

    it 'returns nil for a file no converter reads' do
      store.write('photo.png', "\x89PNG\r\n\x1a\n\0\0\0\rIHDR".b)
      expect(store.text('photo.png')).to be_nil
    end

    it 'raises FileNotFoundError for a missing file' do
      expect { store.text('missing.md') }.to raise_error(RubyLLM::FileNotFoundError)
    end

    it 'converts each version of a file once' do
      calls = []
      converter = lambda do |attachment|
        calls << attachment.filename
        "text of #{attachment.content.bytesize} bytes"
      end
      config = Struct.new(:file_converters).new({ '*/*' => converter })
      store.write('a.txt', 'v1')
      2.times { expect(store.text('a.txt', config:)).to eq('text of 2 bytes') }
      store.write('a.txt', 'v2!')
      expect(store.text('a.txt', config:)).to eq('text of 3 bytes')
      expect(calls).to eq(['a.txt', 'a.txt'])
    end
  end

  describe 'attachment' do
    it 'returns the file as an attachment with its name and content' do
      store.write('charts/revenue.png', "\x89PNG\r\n\x1a\n\0\0\0\rIHDR".b)
      attachment = store.attachment('charts/revenue.png')
      expect(attachment.filename).to eq('revenue.png')
      expect(attachment.content.b).to eq("\x89PNG\r\n\x1a\n\0\0\0\rIHDR".b)
      expect(attachment.mime_type).to eq('image/png')
    end

    it 'raises FileNotFoundError for a missing file' do
      expect { store.attachment('missing.png') }.to raise_error(RubyLLM::FileNotFoundError)
    end
  end

  describe 'with_lock' do
    it 'returns the block value and is reentrant' do
      expect(store.with_lock { store.with_lock { :inner } }).to eq(:inner)
    end

    it 'keeps read-modify-write cycles of several threads from interleaving' do
      store.write('counter.txt', '0')
      threads = Array.new(4) do
        Thread.new do
          25.times do
            store.with_lock do
              value = store.read('counter.txt').to_i
              Thread.pass
              store.write('counter.txt', (value + 1).to_s)
            end
          end
        end
      end
      threads.each(&:join)
      expect(store.read('counter.txt')).to eq('100')
    end
  end
end
