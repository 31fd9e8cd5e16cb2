# frozen_string_literal: true

# What a careless or hostile caller hands the tools: every answer is a short
# result or a short "Error:", within the ceiling, and nothing is lost.
RSpec.describe 'The tools under hostile input' do
  let(:ceiling) { RubyLLM::FileStore::Native::MAX_RESULT_CHARS }

  def tool(name, **options)
    RubyLLM::FileStore::Tools.const_get(name).new(store, **options)
  end

  each_store do
    it 'refuses to edit a file over the size limit without reading it' do
      store.max_file_size = 1000
      store.write('big.txt', "#{'x' * 1999}\n")
      tool(:ReadFile).call(path: 'big.txt')
      allow(store).to receive(:read).and_call_original
      expect(tool(:EditFile).call(path: 'big.txt', old_text: 'x', new_text: 'y', replace_all: true))
        .to eq("Error: big.txt is 2 KB, over this store's limit of 1000 bytes a file. Write it as several smaller files.")
      expect(store).not_to have_received(:read)
    end

    it 'returns at most the ceiling of characters from read_file, however large the limit' do
      store.write('huge.txt', "#{'a' * 99}\n" * 5000)
      lines = tool(:ReadFile).call(path: 'huge.txt', limit: 10**12)
      expect(lines.length).to be <= ceiling
      expect(lines).to match(/lines 1-\d+ of 5000\. Read on with offset: \d+\.\]\z/)
      characters = tool(:ReadFile).call(path: 'huge.txt', limit: 10**12, unit: 'characters')
      expect(characters.length).to be <= ceiling + 200
      expect(characters).to end_with("more follow. Read on with offset: #{ceiling - 1000}.]")
    end

    it 'refuses content that is not a string, writing nothing' do
      [nil, { 'a' => 1 }, [1, 2], 42].each do |content|
        expect(tool(:WriteFile).call(path: 'a.json', content:))
          .to eq("Error: content must be a string, the whole text of the file, not #{content.class}")
      end
      expect(store.exist?('a.json')).to be(false)
    end

    it 'refuses fractional offsets and limits' do
      store.write('a.txt', "one\ntwo\n")
      [[{ offset: 1.5 }, 'offset must be a whole number of at least 1, not 1.5'],
       [{ limit: 2.5 }, 'limit must be a whole number of at least 1, not 2.5'],
       [{ offset: -0.5, unit: 'characters' }, 'offset must be a whole number of at least 0, not -0.5']]
        .each do |arguments, message|
          expect(tool(:ReadFile).call(path: 'a.txt', **arguments)).to eq("Error: #{message}")
        end
      expect(tool(:ReadFile).call(path: 'a.txt', offset: 2.0)).to start_with("     2\ttwo")
    end

    it 'reads offsets and limits past 64 bits as past the end, not as a RangeError' do
      store.write('a.txt', "one\ntwo\n")
      [2**64, 2**100, 1e20].each do |huge|
        expect(tool(:ReadFile).call(path: 'a.txt', offset: huge))
          .to eq('[The file has 2 lines; offset 9223372036854775807 is past the end.]')
        expect(tool(:ReadFile).call(path: 'a.txt', offset: huge, unit: 'characters'))
          .to eq("\n[The text has 8 characters; offset 9223372036854775807 is past the end.]")
        expect(tool(:ReadFile).call(path: 'a.txt', limit: huge)).to eq("     1\tone\n     2\ttwo")
      end
    end

    it 'refuses a pattern that is not UTF-8 with a plain Error' do
      store.write('a.txt', 'hello')
      expect(tool(:SearchFiles).call(pattern: "\xFFhello".b))
        .to eq('Error: pattern is not valid UTF-8: search for text')
    end

    it 'refuses an edit whose result would pass the size limit before building it, changing nothing' do
      store.max_file_size = 2_000_000
      store.write('a.txt', "#{'a' * 99}\n" * 10_000)
      tool(:ReadFile).call(path: 'a.txt', limit: 1)
      expect(tool(:EditFile).call(path: 'a.txt', old_text: 'a', new_text: 'b' * 100, replace_all: true))
        .to eq('Error: replacing 990000 places would make the file 99010000 bytes, over this store\'s limit of ' \
               '2000000 bytes a file. Replace fewer places or shorter text.')
      expect(store.read('a.txt')).to eq("#{'a' * 99}\n" * 10_000)
    end

    it 'keeps errors and notes short for a huge pattern' do
      store.write('a.txt', 'hello')
      invalid = tool(:SearchFiles).call(pattern: "(#{'a' * 60_000}")
      expect(invalid).to start_with('Error: Invalid regex "(aaaa')
      expect(invalid.length).to be < 1200
      unmatched = tool(:SearchFiles).call(pattern: 'b' * 60_000, literal: true)
      expect(unmatched).to start_with('No matches for "bbb')
      expect(unmatched.length).to be < 300
    end

    it 'refuses a 100 MB pattern and patterns that compile too large, with an Error the model reads' do
      store.write('a.txt', 'hello')
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      [false, true].each do |literal|
        expect(tool(:SearchFiles).call(pattern: 'a' * (100 << 20), literal:))
          .to eq('Error: the pattern is 104857600 bytes, over the limit of 64 KB: search for a shorter part of it')
      end
      ['((a{100}){100}){100}', '(\w{1000}){1000}', Array.new(6000) { |i| "\\w{#{(i % 50) + 1}}" }.join('|')]
        .each do |pattern|
          refused = tool(:SearchFiles).call(pattern:)
          expect(refused).to start_with('Error: Invalid regex ')
          expect(refused).to include('size limit')
          expect(refused.length).to be < 600
        end
      expect(Process.clock_gettime(Process::CLOCK_MONOTONIC) - started).to be < 10
    end

    it 'cuts any long tool result at the ceiling, saying so' do
      900.times { |i| store.write("#{'d' * 150}/#{i.to_s.rjust(150, 'f')}.txt", 'x') }
      listed = tool(:ListFiles).call
      expect(listed.length).to be <= ceiling + 300
      expect(listed).to include('[Result cut: showing')
    end
  end
end

RSpec.describe 'What read_file records as read', :native do
  include TmpDirHelper

  let(:store) { RubyLLM.file_store.directory(File.join(tmp_dir, 'store')) }
  let(:path) { File.join(store.local_root, 'a.txt') }

  # Another writer replaces the file right after the read streamed it: same size,
  # same time of change, as coarse timestamps or `cp -p` give.
  def rewrite_after_each_read(method)
    file = path
    store.define_singleton_method(method) do |*arguments, **window|
      super(*arguments, **window).tap do
        time = File.mtime(file)
        File.write(file, 'BBBB')
        File.utime(time, time, file)
      end
    end
  end

  %i[read_lines read_chars].each do |method|
    it "is the content #{method} streamed, so a same-size rewrite with the same time is not taken for it" do
      store.write('a.txt', 'AAAA')
      rewrite_after_each_read(method)
      unit = method == :read_lines ? 'lines' : 'characters'
      expect(RubyLLM::FileStore::Tools::ReadFile.new(store).call(path: 'a.txt', unit:)).to match(/\A(     1\t)?AAAA\z/)
      expect(RubyLLM::FileStore::Tools::WriteFile.new(store).call(path: 'a.txt', content: 'mine'))
        .to eq('Error: a.txt changed since it was read. Read it again with read_file before changing it.')
      expect(File.read(path)).to eq('BBBB')
    end
  end
end
