# frozen_string_literal: true

RSpec.describe RubyLLM::FileStore::Tools::EditFile do
  each_store do
    let(:tool) { described_class.new(store) }
    let(:reader) { RubyLLM::FileStore::Tools::ReadFile.new(store) }

    def read_first(path, content)
      store.write(path, content)
      reader.call(path:)
    end

    it 'replaces one span and shows the changed lines with numbers' do
      read_first('a.txt', "one\ntwo\nthree\nfour\nfive\nsix\n")
      expect(tool.call(path: 'a.txt', old_text: 'three', new_text: 'THREE'))
        .to eq("Edited a.txt: 1 place changed.\n     1\tone\n     2\ttwo\n     3\tTHREE\n     4\tfour\n     5\tfive")
      expect(store.read('a.txt')).to eq("one\ntwo\nTHREE\nfour\nfive\nsix\n")
    end

    it 'needs a read first, and a read again after a change' do
      store.write('a.txt', 'hello')
      expect(tool.call(path: 'a.txt', old_text: 'hello', new_text: 'bye'))
        .to eq('Error: a.txt exists and has not been read. Read it with read_file before changing it.')
      reader.call(path: 'a.txt')
      expect(tool.call(path: 'a.txt', old_text: 'hello', new_text: 'hi')).to start_with('Edited a.txt')
      expect(tool.call(path: 'a.txt', old_text: 'hi', new_text: 'hey')).to start_with('Edited a.txt')
      store.write('a.txt', 'someone else')
      expect(tool.call(path: 'a.txt', old_text: 'someone', new_text: 'x')).to include('changed since it was read')
    end

    it 'lists the lines of several matches and asks for context or replace_all' do
      read_first('a.txt', "x = 1\ny = 2\nx = 1\n")
      expect(tool.call(path: 'a.txt', old_text: 'x = 1', new_text: 'x = 3'))
        .to eq('Error: old_text matches 2 places (lines 1, 3). Add surrounding lines to old_text to pick one, ' \
               'or pass replace_all: true.')
      expect(tool.call(path: 'a.txt', old_text: 'x = 1', new_text: 'x = 3', replace_all: true))
        .to start_with('Edited a.txt: 2 places changed.')
      expect(store.read('a.txt')).to eq("x = 3\ny = 2\nx = 3\n")
    end

    it 'says when old_text is not there and shows the closest lines' do
      read_first('a.txt', "def total(items)\n  items.sum\nend\n")
      result = tool.call(path: 'a.txt', old_text: 'def totals(items)', new_text: 'x')
      expect(result).to start_with('Error: old_text was not found in the file.')
      expect(result).to include("     1\tdef total(items)")
    end

    it 'changes only the bytes of its span: BOM, CRLF and Latin-1 or Shift-JIS bytes elsewhere stay' do
      content = "\xEF\xBB\xBFtitle\r\ncaf\xE9 \x93\xFA\x96\x7B\r\nold line\r\nend\r\n".b
      read_first('mixed.txt', content)
      expect(tool.call(path: 'mixed.txt', old_text: 'old line', new_text: 'new line')).to start_with('Edited')
      expect(store.read('mixed.txt')).to eq(content.sub('old line'.b, 'new line'.b))
    end

    it 'keeps CRLF line endings when old_text spans lines written with \n' do
      read_first('crlf.txt', "a\r\nb\r\nc\r\n")
      tool.call(path: 'crlf.txt', old_text: "a\nb", new_text: "a\nB")
      expect(store.read('crlf.txt')).to eq("a\r\nB\r\nc\r\n")
    end

    it 'answers a missing file and an empty old_text with error messages' do
      expect(tool.call(path: 'nope.txt', old_text: 'a', new_text: 'b')).to eq('Error: No file at nope.txt')
      read_first('a.txt', 'abc')
      expect(tool.call(path: 'a.txt', old_text: '', new_text: 'b')).to start_with('Error: old_text is empty')
    end

    it 'refuses an edit that makes the file larger than the store limit' do
      read_first('a.txt', 'abc')
      store.max_file_size = 5
      expect(tool.call(path: 'a.txt', old_text: 'abc', new_text: 'abcdef')).to include("over this store's limit")
      expect(store.read('a.txt')).to eq('abc')
    end
  end
end
