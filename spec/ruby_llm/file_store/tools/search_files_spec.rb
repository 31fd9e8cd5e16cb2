# frozen_string_literal: true

RSpec.describe RubyLLM::FileStore::Tools::SearchFiles do
  each_store do
    let(:tool) { described_class.new(store) }

    before do
      store.write('handbook.txt', (1..400).map { |n| n == 287 ? 'Remote work needs approval.' : "Line #{n}" }.join("\n"))
      store.write('notes/a.md', "alpha\nRemote first\nomega\n")
      store.write('notes/b.md', "nothing here\n")
    end

    it 'shows matching lines as path:line: text, in path order' do
      expect(tool.call(pattern: 'Remote'))
        .to eq("handbook.txt:287: Remote work needs approval.\nnotes/a.md:2: Remote first")
    end

    it 'shows context lines and separates groups like grep' do
      expect(tool.call(pattern: 'Remote', context: 1)).to eq(<<~OUT.chomp)
        handbook.txt-286- Line 286
        handbook.txt:287: Remote work needs approval.
        handbook.txt-288- Line 288
        --
        notes/a.md-1- alpha
        notes/a.md:2: Remote first
        notes/a.md-3- omega
      OUT
    end

    it 'searches one folder or one file' do
      expect(tool.call(pattern: 'Remote', path: 'notes')).to eq('notes/a.md:2: Remote first')
      expect(tool.call(pattern: 'Remote', path: 'handbook.txt')).to eq('handbook.txt:287: Remote work needs approval.')
      expect(tool.call(pattern: 'Remote', path: '.').lines.size).to eq(2)
      expect(tool.call(pattern: 'x', path: 'missing')).to eq('Error: No file or folder at missing. list_files shows the files there are.')
    end

    it 'matches literally and ignoring case when asked' do
      store.write('code.rb', "a.b(c)\naxb(c)\n")
      expect(tool.call(pattern: 'a.b(c)', literal: true)).to eq('code.rb:1: a.b(c)')
      expect(tool.call(pattern: 'remote', ignore_case: true).lines.size).to eq(2)
      expect(tool.call(pattern: 'remote')).to eq('No matches for "remote" in 4 files.')
    end

    it 'shows at most 200 matching lines, then the total and how to narrow' do
      store.write('many.txt', (1..450).map { |n| "hit #{n}" }.join("\n"))
      lines = tool.call(pattern: 'hit').lines(chomp: true)
      expect(lines.size).to eq(201)
      expect(lines[199]).to eq('many.txt:200: hit 200')
      expect(lines.last).to match(/\A\[Showing 200 of 450 matching lines in 1 file\. Narrow the search with path/)
    end

    it 'searches the text of an app\'s own converter and says which files it skipped' do
      store.write('blob.bin', "Remote\x00binary".b)
      store.write('report.pdf', '%PDF-1.4 Remote')
      config = Struct.new(:file_converters).new({ 'application/pdf' => ->(_) { "## Page 1\nRemote clause" } })
      expect(described_class.new(store, config:).call(pattern: 'Remote', path: '.').lines(chomp: true))
        .to eq(['handbook.txt:287: Remote work needs approval.', 'notes/a.md:2: Remote first',
                'report.pdf:2: Remote clause', '[1 file skipped: blob.bin is binary.]'])
    end

    it 'searches PDFs, Office files and HTML with no configuration' do
      fixtures = File.expand_path('../../../fixtures', __dir__)
      store.write('report.pdf', File.binread("#{fixtures}/report.pdf"))
      store.write('docs/report.docx', File.binread("#{fixtures}/documents/report.docx"))
      store.write('docs/report.html', File.binread("#{fixtures}/documents/report.html"))
      found = tool.call(pattern: 'revenue', ignore_case: true)
      expect(found).to include('report.pdf:2: Quarterly report: revenue grew 12 percent.')
      expect(found.lines.map { |line| line[/\A[^:]+/] }.uniq)
        .to include('docs/report.docx', 'docs/report.html', 'report.pdf')
      expect(found).not_to include('skipped')
    end

    it 'says which files it could not read and why, never "0 files" when there were files' do
      fixtures = File.expand_path('../../../fixtures', __dir__)
      store.write('only/scan.png', File.binread("#{fixtures}/chart.png"))
      store.write('only/blob.bin', "x\x00y".b)
      expect(tool.call(pattern: 'termination', path: 'only'))
        .to eq('No matches for "termination": no file had text to search. ' \
               '2 files skipped: only/blob.bin is binary; only/scan.png has no text converter.')
      store.write('only/scan.pdf', File.binread("#{fixtures}/documents/scan.pdf"))
      store.write('only/terms.txt', "nothing\n")
      # The folder store's core also says why the converter gave nothing.
      expect(tool.call(pattern: 'termination', path: 'only'))
        .to match(Regexp.new('\\ANo matches for "termination" in 1 file\\. 3 files skipped: only/blob\\.bin is ' \
                             'binary; only/scan\\.pdf gave no text( \\(the PDF has no text\\))?; only/scan\\.png ' \
                             'has no text converter\\.\\z'))
      expect(tool.call(pattern: 'x', path: 'only/blob.bin')).to eq('No matches for "x": no file had text to search. ' \
                                                                   '1 file skipped: only/blob.bin is binary.')
    end

    it 'skips a file whose converter raises, saying so without its error, and searches the rest' do
      RubyLLM::FileStore.raise_converter_errors = false
      failing = ->(_file) { raise NoMethodError, "undefined method `pages' for nil (reader.rb:12)" }
      config = Struct.new(:file_converters).new({ 'application/x-broken' => failing })
      store.write('only/a.broken', 'Remote', content_type: 'application/x-broken')
      store.write('only/terms.txt', "Remote terms\n")
      expect(described_class.new(store, config:).call(pattern: 'Remote', path: 'only'))
        .to eq("only/terms.txt:1: Remote terms\n[1 file skipped: only/a.broken could not be converted " \
               '(its application/x-broken converter failed).]')
    ensure
      RubyLLM::FileStore.raise_converter_errors = nil
    end

    it 'names ten skipped files and counts the rest' do
      12.times { |n| store.write(format('img/%02d.png', n), "\x89PNG\r\n".b) }
      expect(tool.call(pattern: 'x', path: 'img')).to end_with('img/09.png has no text converter; and 2 more.')
    end

    it 'searches a file whose type a converter is removed for as a file with no converter' do
      store.write('report.pdf', File.binread(File.expand_path('../../../fixtures/report.pdf', __dir__)))
      config = Struct.new(:file_converters).new(RubyLLM::FileStore::Converters.defaults.except('application/pdf'))
      expect(described_class.new(store, config:).call(pattern: 'revenue', path: 'report.pdf'))
        .to eq('No matches for "revenue": no file had text to search. 1 file skipped: report.pdf has no text converter.')
    end

    it 'names the problem with an invalid regex' do
      expect(tool.call(pattern: 'foo(')).to start_with('Error: Invalid regex "foo(":')
      expect(tool.call(pattern: '')).to eq('Error: pattern is empty: say what to search for')
    end

    it 'runs a pattern that backtracks catastrophically elsewhere in linear time' do
      store.write('evil.txt', "#{'a' * 50_000}!")
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      expect(tool.call(pattern: '(a+)+b', path: 'evil.txt')).to eq('No matches for "(a+)+b" in 1 file.')
      expect(Process.clock_gettime(Process::CLOCK_MONOTONIC) - started).to be < 5
    end
  end
end

RSpec.describe RubyLLM::FileStore::Tools::SearchFiles, 'over a folder store' do
  include TmpDirHelper

  let(:store) { RubyLLM.file_store.directory(File.join(tmp_dir, 'store')) }
  let(:fixtures) { File.expand_path('../../../fixtures', __dir__) }

  before do
    store.write('contract-v2.pdf', File.binread("#{fixtures}/contract-v2.pdf"))
    store.write('notes.md', "termination notes\n")
    store.write('memo.rtf', '{\rtf1 termination memo}')
  end

  it 'converts and searches PDFs in the core, listing nothing to Ruby and reading nothing there' do
    %i[list text text_and_version read].each { |name| expect(store).not_to receive(name) }
    expect(described_class.new(store).call(pattern: 'terminat', ignore_case: true).lines(chomp: true).first(3))
      .to eq(['contract-v2.pdf:33: 7. Termination',
              'contract-v2.pdf:34: Either party may terminate this agreement with 60 days written notice; ' \
              'termination for cause', 'notes.md:1: termination notes'])
  end

  it "converts in Ruby only the files of a type the app's own converter reads" do
    converted = []
    rtf = lambda do |file|
      converted << file.filename
      file.content.to_s[/\\rtf1 (.*)\}/, 1]
    end
    config = Struct.new(:file_converters).new(RubyLLM::FileStore::Converters.defaults.merge('application/rtf' => rtf))
    found = described_class.new(store, config:).call(pattern: 'termination memo|notes$')
    expect(found).to eq("memo.rtf:1: termination memo\nnotes.md:1: termination notes")
    expect(converted).to eq(['memo.rtf'])
    described_class.new(store, config:).call(pattern: 'memo')
    expect(converted).to eq(['memo.rtf']), 'the second search reads the text converted once'
  end
end
