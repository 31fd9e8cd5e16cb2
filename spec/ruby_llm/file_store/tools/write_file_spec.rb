# frozen_string_literal: true

RSpec.describe RubyLLM::FileStore::Tools::WriteFile do
  each_store do
    let(:tool) { described_class.new(store) }
    let(:reader) { RubyLLM::FileStore::Tools::ReadFile.new(store) }

    it 'creates a file without a read, and says what it wrote' do
      expect(tool.call(path: 'notes/summary.md', content: '# Summary')).to eq('Wrote notes/summary.md (text/markdown, 9 bytes)')
      expect(store.read('notes/summary.md')).to eq('# Summary')
    end

    it 'replaces a file only after a read of its current version' do
      store.write('plan.md', 'v1')
      expect(tool.call(path: 'plan.md', content: 'v2'))
        .to eq('Error: plan.md exists and has not been read. Read it with read_file before changing it.')
      reader.call(path: 'plan.md')
      expect(tool.call(path: 'plan.md', content: 'v2')).to start_with('Wrote plan.md')
      expect(tool.call(path: 'plan.md', content: 'v3')).to start_with('Wrote plan.md')
      expect(store.read('plan.md')).to eq('v3')
    end

    it 'refuses to replace a file that changed since it was read' do
      store.write('plan.md', 'v1')
      reader.call(path: 'plan.md')
      store.write('plan.md', 'changed by someone else')
      expect(tool.call(path: 'plan.md', content: 'mine'))
        .to eq('Error: plan.md changed since it was read. Read it again with read_file before changing it.')
      expect(store.read('plan.md')).to eq('changed by someone else')
    end

    it 'tracks content, not the clock: a rewrite with the same bytes needs no new read' do
      store.write('plan.md', 'v1')
      reader.call(path: 'plan.md')
      store.write('plan.md', 'v1')
      expect(tool.call(path: 'plan.md', content: 'v2')).to start_with('Wrote plan.md')
    end

    it 'refuses content over the store limit, and keeps the old file' do
      store.max_file_size = 10
      expect(tool.call(path: 'big.txt', content: 'x' * 11))
        .to eq("Error: big.txt would be 11 bytes, over this store's limit of 10 bytes a file. " \
               'Write it as several smaller files.')
      expect(store.exist?('big.txt')).to be(false)
    end

    it 'answers bad paths with error messages' do
      store.write('dir/a.txt', 'x')
      expect(tool.call(path: '../x', content: 'x')).to eq(%(Error: "../x" is not a path inside the chat's files))
      expect(tool.call(path: 'dir', content: 'x')).to eq('Error: dir is a folder, not a file')
    end
  end
end
