# frozen_string_literal: true

RSpec.describe RubyLLM::FileStore::Tools::ReadFile do
  each_store do
    let(:tool) { described_class.new(store) }
    let(:handbook) { (1..400).map { |n| "Line #{n}" }.join("\n") << "\n" }

    before { store.write('handbook.txt', handbook) }

    it 'reads a UTF-16 file with a byte order mark as its text, as search_files finds it' do
      store.write('notes.txt', "\xFF\xFE".b + "first line\nsecond été\n".encode('UTF-16LE').b)
      expect(tool.call(path: 'notes.txt')).to eq("     1\tfirst line\n     2\tsecond été")
      expect(RubyLLM::FileStore::Tools::SearchFiles.new(store).call(pattern: 'été')).to eq('notes.txt:2: second été')
    end

    it 'shows a small file whole, numbered, with no trailer' do
      store.write('a.md', "one\ntwo")
      expect(tool.call(path: 'a.md')).to eq("     1\tone\n     2\ttwo")
    end

    it 'shows lines from offset, at most limit, and says where to read on' do
      expect(tool.call(path: 'handbook.txt', offset: 287, limit: 2))
        .to eq("   287\tLine 287\n   288\tLine 288\n[Showing lines 287-288 of 400. Read on with offset: 289.]")
    end

    it 'says which lines of how many it showed at the end of the file' do
      expect(tool.call(path: 'handbook.txt', offset: 399).lines.last).to eq('[Showing lines 399-400 of 400.]')
    end

    it 'shows at most 2,000 lines by default' do
      store.write('long.txt', (1..2500).map(&:to_s).join("\n"))
      result = tool.call(path: 'long.txt')
      expect(result.lines.size).to eq(2001)
      expect(result.lines.last).to eq('[Showing lines 1-2000 of 2500. Read on with offset: 2001.]')
    end

    it 'says when offset is past the end' do
      expect(tool.call(path: 'handbook.txt', offset: 500)).to eq('[The file has 400 lines; offset 500 is past the end.]')
    end

    it 'cuts a line over 2,000 characters with a marker and says so' do
      store.write('wide.txt', "#{'x' * 2500}\nshort\n")
      result = tool.call(path: 'wide.txt')
      expect(result.lines.first).to eq("     1\t#{'x' * 2000}… [line truncated: 2500 characters]\n")
      expect(result).to include('1 long line was cut short')
    end

    it 'reads characters, never splitting a UTF-8 character' do
      store.write('thai.md', 'ภาษาไทย 日本語 text')
      expect(tool.call(path: 'thai.md', unit: 'characters', offset: 2, limit: 5))
        .to eq("ษาไทย\n[Showing characters 2-6; more follow. Read on with offset: 7.]")
      expect(tool.call(path: 'thai.md', unit: 'characters', offset: 8, limit: 100))
        .to eq("日本語 text\n[Showing characters 8-15 of 16.]")
    end

    it 'reads text in Thai or Japanese as text, not binary' do
      store.write('notes', "# ノート\n#{'日本語のテキスト。' * 2000}")
      expect(tool.call(path: 'notes', limit: 1)).to start_with("     1\t# ノート")
    end

    it 'hands an image to the model as the file itself' do
      png = File.binread(File.expand_path('../../../fixtures/chart.png', __dir__))
      store.write('chart.png', png)
      result = tool.call(path: 'chart.png')
      expect(result.text).to eq('chart.png (image/png, 1.8 KB) is attached as the file itself.')
      expect(result.attachment.content.b).to eq(png)
    end

    it 'never hands the model a file whose first bytes are not what its name says' do
      store.write('report.pdf', '<html><body><p>a page, named as a PDF</p></body></html>')
      store.write('chart.png', 'this is text, and no image at all, named as one')
      expect(tool.call(path: 'report.pdf')).to eq('report.pdf (application/pdf, 55 bytes) has no text to read.')
      expect(tool.call(path: 'chart.png')).to eq('chart.png (image/png, 47 bytes) has no text to read.')
    end

    it "reads a converted document's lines and characters a window at a time, the new text once it changed" do
      store.write('page.html', (1..3000).map { |n| "<p>paragraph #{n}</p>" }.join)
      expect(tool.call(path: 'page.html', offset: 2999, limit: 5))
        .to eq("  2999\tparagraph 2999\n  3000\tparagraph 3000\n[Showing lines 2999-3000 of 3000.]")
      expect(tool.call(path: 'page.html', unit: 'characters', offset: 12, limit: 11))
        .to eq("paragraph 2\n[Showing characters 12-22; more follow. Read on with offset: 23.]")
      store.write('page.html', '<p>only this</p>')
      expect(tool.call(path: 'page.html')).to eq("     1\tonly this")
    end

    it 'reads a PDF through the built-in converter with no configuration' do
      store.write('report.pdf', File.binread(File.expand_path('../../../fixtures/report.pdf', __dir__)))
      expect(tool.call(path: 'report.pdf')).to eq("     1\t## Page 1\n     2\tQuarterly report: revenue grew 12 percent.")
    end

    it 'hands a PDF no converter reads to the model as the file itself' do
      store.write('scan.pdf', File.binread(File.expand_path('../../../fixtures/documents/scan.pdf', __dir__)))
      expect(tool.call(path: 'scan.pdf').attachment.filename).to eq('scan.pdf')
      store.write('report.pdf', File.binread(File.expand_path('../../../fixtures/report.pdf', __dir__)))
      without = Struct.new(:file_converters).new({})
      expect(described_class.new(store, config: without).call(path: 'report.pdf').attachment.filename)
        .to eq('report.pdf')
    end

    it 'reads a PDF through a registered converter' do
      config = Struct.new(:file_converters).new({ 'application/pdf' => ->(_) { "## Page 1\n\nRevenue grew." } })
      store.write('report.pdf', '%PDF-1.4')
      expect(described_class.new(store, config:).call(path: 'report.pdf'))
        .to eq("     1\t## Page 1\n     2\t\n     3\tRevenue grew.")
    end

    it 'says a binary file has no text, pointing at run_code only when the model can run code' do
      store.write('data.bin', "\x00\x01\x02".b)
      expect(tool.call(path: 'data.bin')).to eq('data.bin (application/octet-stream, 3 bytes) has no text to read.')
      expect(described_class.new(store, code: -> { true }).call(path: 'data.bin'))
        .to eq('data.bin (application/octet-stream, 3 bytes) has no text to read: read it with run_code.')
    end

    it 'answers a missing file, a bad unit and a bad offset with error messages' do
      expect(tool.call(path: 'nope.txt')).to eq('Error: No file at nope.txt. list_files shows the files there are.')
      expect(tool.call(path: 'handbook.txt', unit: 'pages')).to eq('Error: unit must be "lines" or "characters", not "pages"')
      expect(tool.call(path: 'handbook.txt', offset: 0))
        .to eq('Error: offset must be a whole number of at least 1, not 0')
      expect(tool.call(path: 'handbook.txt', limit: 'ten'))
        .to eq('Error: limit must be a whole number of at least 1, not "ten"')
    end

    it 'reads the empty file' do
      store.write('empty.txt', '')
      expect(tool.call(path: 'empty.txt')).to eq('[The file is empty.]')
    end
  end

  it 'reads line 1,000,000 of a large file without loading it', :large do
    Dir.mktmpdir do |dir|
      File.open(File.join(dir, 'big.log'), 'wb') do |io|
        block = (1..10_000).map { |n| "log line #{n} #{'x' * 80}\n" }.join
        120.times { io.write(block) }
      end
      store = RubyLLM.file_store.directory(dir)
      before = File.read('/proc/self/status')[/VmHWM:\s+(\d+)/, 1].to_i
      result = described_class.new(store).call(path: 'big.log', offset: 1_000_000, limit: 3)
      after = File.read('/proc/self/status')[/VmHWM:\s+(\d+)/, 1].to_i
      expect(result.lines.first).to eq("1000000\tlog line 10000 #{'x' * 80}\n")
      expect(after - before).to be < 64 * 1024
    end
  end
end
