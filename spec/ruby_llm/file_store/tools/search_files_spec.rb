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

    it 'skips binary files silently and searches converted text' do
      store.write('blob.bin', "Remote\x00binary".b)
      store.write('report.pdf', '%PDF-1.4 Remote')
      config = Struct.new(:file_converters).new({ 'application/pdf' => ->(_) { "## Page 1\nRemote clause" } })
      expect(described_class.new(store, config:).call(pattern: 'Remote', path: '.').lines(chomp: true))
        .to eq(['handbook.txt:287: Remote work needs approval.', 'notes/a.md:2: Remote first', 'report.pdf:2: Remote clause'])
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
