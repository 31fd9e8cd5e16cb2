# frozen_string_literal: true

require 'digest/sha2'

# The native boundary: named values (read windows, look-ups and searches as Hashes,
# a listing's Native::Entry) instead of positions, and the core's rules and limits
# exported once.
RSpec.describe RubyLLM::FileStore::Native, :native do
  include TmpDirHelper

  let(:native) { described_class }
  let(:store) { RubyLLM::FileStore::Directory.new(File.join(tmp_dir, 'store')) }

  # The character trailer as read_file wrote it in Ruby before the core did.
  def reference_trailer(from, count, total)
    last = from + count
    return if from.zero? && total == last
    return "[The text has #{total} characters; offset #{from} is past the end.]" if total && count.zero?

    shown = "characters #{from}-#{last - 1}"
    return "[Showing #{shown} of #{total}.]" if total == last

    "[Showing #{shown}; more follow. Read on with offset: #{last}.]"
  end

  it 'writes the character trailer as read_file always did, for every window of a short text' do
    text = 'héllo ✓'
    (0..9).to_a.product((1..9).to_a).each do |offset, limit|
      slice = native.read_chars(text.b, offset:, limit:)
      window = text.chars[offset, limit] || []
      total = offset + limit >= text.length ? text.length : nil
      expect(slice.values_at(:text, :trailer)).to eq([window.join, reference_trailer(offset, window.size, total)]),
                                                  "offset #{offset}, limit #{limit}"
    end
  end

  it 'keeps a character window within MAX_READ_CHARS, the result ceiling less the trailer room' do
    expect(native::MAX_READ_CHARS).to eq(native::MAX_RESULT_CHARS - native::TRAILER_ROOM)
    slice = native.read_chars('x' * (native::MAX_RESULT_CHARS * 2), offset: 0, limit: native::MAX_RESULT_CHARS * 2)
    expect(slice[:text].size).to eq(native::MAX_READ_CHARS)
    expect(slice[:trailer]).to eq("[Showing characters 0-#{native::MAX_READ_CHARS - 1}; more follow. " \
                                  "Read on with offset: #{native::MAX_READ_CHARS}.]")
  end

  it 'gives a window of lines as one Hash with its trailer, and the version of bytes handed in' do
    slice = native.read_lines("a\nb\nc\n", offset: 2, limit: 1, max_chars: 2000)
    expect(slice).to eq(text: "     2\tb\n", trailer: '[Showing line 2 of 3. Read on with offset: 3.]',
                        version: Digest::SHA256.hexdigest("a\nb\nc\n"))
    expect(native.version_of_bytes("a\nb\nc\n")).to eq(slice[:version])
    expect(native.version_of_bytes("\n" * (native::DIGEST_LIMIT + 1))).to be_nil
  end

  it "gives a folder read's version: the digest up to DIGEST_LIMIT, then the size, time and stamp" do
    store.write('small.txt', "one\ntwo\n")
    small = store.instance_variable_get(:@native).read_lines('small.txt', offset: 1, limit: 1, max_chars: 2000)
    expect(small[:version]).to eq(Digest::SHA256.hexdigest("one\ntwo\n"))

    store.write('large.txt', "#{'x' * 99}\n" * ((native::DIGEST_LIMIT / 100) + 1))
    version = store.read_lines('large.txt', offset: 1, limit: 1, max_chars: 2000)[:version]
    size = File.size(File.join(store.local_root, 'large.txt'))
    expect(version).to eq([:size_and_time, size, nil, store['large.txt'].stamp])
    expect(version.last).to match(/\A\d+\.\d{9} \h+:\d+ \h{64}\z/)
    expect(version).to eq(RubyLLM::FileStore::Reads.version_of_file(store['large.txt']))
    expect(RubyLLM::FileStore::Reads::DIGEST_LIMIT).to eq(native::DIGEST_LIMIT)
  end

  it 'lists files as Entries with readers, sharing one frozen String per content type' do
    store.write('a.md', '# A')
    store.write('b.md', '# B')
    entries = store.instance_variable_get(:@native).list(nil)
    expect(entries.map(&:class).uniq).to eq([described_class::Entry])
    expect(entries.map(&:path)).to eq(%w[a.md b.md])
    expect(entries.map(&:size)).to eq([3, 3])
    expect(entries.map(&:digest)).to eq([nil, nil])
    types = entries.map(&:content_type)
    expect(types.first).to be_frozen
    expect(types.first).to equal(types.last)
    expect(store['a.md'].digest).to eq(Digest::SHA256.hexdigest('# A'))
  end

  it 'gives a look-up as one Hash, with the Entry a later digest or stamp checks against' do
    store.write('a.md', '# A')
    found = store.instance_variable_get(:@native).stat('a.md')
    mtime = File.mtime(File.join(store.local_root, 'a.md'))
    expect(found.except(:entry)).to eq(path: 'a.md', size: 3, content_type: 'text/markdown',
                                       mtime: [mtime.to_i, mtime.nsec], digest: nil)
    expect(found[:content_type]).to be_frozen
    expect(found[:entry]).to be_a(described_class::Entry)
    expect(store['a.md'].updated_at).to eq(mtime)
    expect(store.instance_variable_get(:@native).stat('missing.md')).to be_nil
  end

  it 'searches with an options Hash and gives a Hash, naming a missing option' do
    found = native.search([['a.txt', "x\ny\nx\n"]], { pattern: 'x', max_matches: 1 })
    expect(found).to include(text: "a.txt:1: x\n", shown: 1, total: 2, files_matched: 1, skipped: 0,
                             skipped_shown: [])
    expect(found[:summary]).to match(/1 of 2/)
    expect { native.search([], { max_matches: 1 }) }.to raise_error(ArgumentError, 'search option pattern is missing')
    expect { native.search([], { pattern: 'x', max_matches: 'many' }) }
      .to raise_error(ArgumentError, /search option max_matches/)
  end

  it 'tells which types hold text by the one rule of the core' do
    kinds = %w[text/plain application/json image/svg+xml image/png audio/mpeg application/zip] +
            ['', 'application/octet-stream']
    expect(kinds.map { |type| native.type_rules(type)[:text] }).to eq([:text, :text, :text, false, false, false,
                                                                       :unknown, :unknown])
    expect(kinds.map { |type| RubyLLM::FileStore::Converters::Text.readable_type?(type) })
      .to eq(kinds.map { |type| native.type_rules(type)[:text] })
  end

  it "says why a file is no text in the search's own words, by one decision" do
    text = RubyLLM::FileStore::Converters::Text
    expect(native::NOT_TEXT).to eq(no_converter: 'has no text converter', binary: 'is binary')
    expect(text.why_not_text('text/plain', 9) { raise 'no need to read' }).to be_nil
    expect(text.why_not_text('image/png', 9) { raise 'no need to read' }).to eq('has no text converter')
    expect(text.why_not_text('application/octet-stream', 0) { raise 'nothing to read' }).to be_nil
    expect(text.why_not_text('application/octet-stream', 3) { "a\0b" }).to eq('is binary')
    store.write('scan.png', "\x89PNG\r\n\x1a\n".b)
    store.write('blob', "Revenue\0".b)
    skipped = store.search_tree(nil, 'Revenue', max_matches: 10)[:skipped_shown].to_h
    expect(skipped).to eq('scan.png' => native::NOT_TEXT[:no_converter], 'blob' => native::NOT_TEXT[:binary])
    attachment = ConverterInput.new(content: "#{'a' * 9000}\0", filename: 'x')
    expect(text.readable?(attachment, 'application/octet-stream')).to be(false)
  end

  it 'leaves FileStore::Native unshadowed inside Converters' do
    expect(RubyLLM::FileStore::Converters.const_defined?(:Native, false)).to be(false)
    expect(RubyLLM::FileStore::Converters::Builtin.refusal(:convert_pdf, 'plain'))
      .to eq('not a readable PDF: no %PDF header')
  end

  it 'gives every result of several values by name: converters, conversions, spills, edits, snapshot changes' do
    store.write('page.html', '<p>Hello</p>')
    folder = File.join(tmp_dir, 'store')
    before = native::Snapshot.take(folder)
    File.write(File.join(folder, 'new.txt'), 'x')
    converted = native::Directory.open(folder).converted('page.html', %w[html])

    expect(native.convert_html('<p>Hello</p>')).to eq(text: "Hello\n", refusal: nil, stopped: false)
    expect(native.convert_pdf('plain')).to eq(text: nil, refusal: 'not a readable PDF: no %PDF header', stopped: false)
    expect(converted).to eq(text: "Hello\n", why: nil, stopped: false, version: Digest::SHA256.hexdigest('<p>Hello</p>'))
    expect(native.spill('t', 'a' * 30_000).keys).to eq(%i[saved path preview])
    expect(native.edit('a b a', old_text: 'a', new_text: 'c', replace_all: true, max_size: 100).slice(:content, :replacements)).to eq(content: 'c b c', replacements: 2)
    expect(before.changes(native::Snapshot.take(folder))).to include(created: ['new.txt'], changed: [], deleted: [])
  end
end
