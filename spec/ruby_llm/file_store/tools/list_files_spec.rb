# frozen_string_literal: true

RSpec.describe RubyLLM::FileStore::Tools::ListFiles do
  each_store do
    let(:tool) { described_class.new(store) }

    it 'says when the store is empty' do
      expect(tool.call).to eq('No files in this chat yet.')
      expect(tool.call(path: 'reports')).to eq('No files in reports.')
    end

    it 'lists one line per file, sorted, with type and size' do
      store.write('reports/q3.pdf', "%PDF-1.7\n#{'x' * 2000}")
      store.write('brief.md', '# Brief')
      expect(tool.call).to eq("brief.md (text/markdown, 7 bytes)\nreports/q3.pdf (application/pdf, 2 KB)")
    end

    it 'lists one folder, and treats ".", "/" and blank as everything' do
      store.write('reports/q3.pdf', '%PDF')
      store.write('rep.txt', 'x')
      expect(tool.call(path: 'reports')).to eq('reports/q3.pdf (application/pdf, 4 bytes)')
      expect(tool.call(path: 'rep')).to eq('No files in rep.')
      ['.', '/', ' ', ''].each { |all| expect(tool.call(path: all).lines.size).to eq(2) }
    end

    it 'says of a file with no text to search why, and nothing of one a converter reads' do
      store.write('chart.png', File.binread(File.expand_path('../../../fixtures/chart.png', __dir__)))
      store.write('blob.bin', "x\x00y".b)
      store.write('empty.bin', '')
      store.write('report.pdf', File.binread(File.expand_path('../../../fixtures/report.pdf', __dir__)))
      expect(tool.call.lines(chomp: true)).to eq(['blob.bin (application/octet-stream, 3 bytes; is binary)',
                                                  'chart.png (image/png, 1.8 KB; has no text converter)',
                                                  'empty.bin (application/octet-stream, 0 bytes)',
                                                  'report.pdf (application/pdf, 623 bytes)'])
    end

    it 'lists a single file when path names one' do
      store.write('rep.txt', 'x')
      expect(tool.call(path: 'rep.txt')).to eq('rep.txt (text/plain, 1 byte)')
    end

    it 'shows at most 1,000 lines and says how many more there are' do
      1005.times { |i| store.write(format('f/%04d.txt', i), 'x') }
      lines = tool.call.lines(chomp: true)
      expect(lines.size).to eq(1001)
      expect(lines[999]).to eq('f/0999.txt (text/plain, 1 byte)')
      expect(lines.last).to eq('[5 more files not shown. Narrow the list with path.]')
    end

    it 'answers a bad path with an error message' do
      expect(tool.call(path: '../etc')).to eq(%(Error: "../etc" is not a path inside the chat's files))
    end
  end

  context 'with a folder store of many files' do
    let(:root) { Dir.mktmpdir }
    let(:store) { RubyLLM::FileStore::Directory.new(root) }

    after { FileUtils.rm_rf(root) }

    # The walk keeps the first 1,000 paths and a count: the Ruby objects a listing
    # makes do not grow with the files the store holds.
    it 'makes objects for the lines it shows, not for every file' do
      20.times { |folder| FileUtils.mkdir_p(File.join(root, "d#{folder}")) }
      20_000.times { |i| File.write(File.join(root, "d#{i % 20}", "f#{i}.txt"), 'x') }
      tool = described_class.new(store)
      tool.call
      before = GC.stat(:total_allocated_objects)
      lines = tool.call.lines(chomp: true)
      expect(GC.stat(:total_allocated_objects) - before).to be < 20_000
      expect(lines.size).to eq(1001)
      expect(lines.first).to eq('d0/f0.txt (text/plain, 1 byte)')
      expect(lines.last).to eq('[19000 more files not shown. Narrow the list with path.]')
    end
  end
end
