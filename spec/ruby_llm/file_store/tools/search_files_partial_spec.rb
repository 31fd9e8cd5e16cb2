# frozen_string_literal: true

# A search over a file whose converted text was cut short says that the file was
# searched only as far as its text was read, and why, in every store.
RSpec.describe RubyLLM::FileStore::Tools::SearchFiles, 'over a text cut short', :large do
  include TmpDirHelper

  # An EPUB listing its one page a million times: its text is cut at 10,000 entries.
  let(:book) { HostileDocuments.long_spine(1_000_000, '<p>chapter text</p>') }

  def search(store)
    store.write('book.epub', book)
    store.write('notes.txt', "chapter notes\n")
    described_class.new(store).call(pattern: 'chapter notes|chapter text')
  end

  def expect_partial(answer)
    expect(answer).to eq("notes.txt:1: chapter notes\n[1 file was searched only as far as its text was read: " \
                         'book.epub (the spine has more than 10000 entries).]')
  end

  it 'says so for a folder store, which converts and searches in the core' do
    expect_partial(search(RubyLLM.file_store.directory(tmp_dir)))
  end

  it 'says so for a memory store, whose texts the Ruby layer hands to the search' do
    expect_partial(search(RubyLLM.file_store.memory))
  end

  it 'says nothing of a text that was read whole' do
    store = RubyLLM.file_store.memory
    store.write('notes.txt', "chapter notes\n")
    expect(described_class.new(store).call(pattern: 'chapter')).to eq('notes.txt:1: chapter notes')
  end
end
