# frozen_string_literal: true

# A chat's record of what the model read stays bounded however many paths it reads,
# deleted ones included: past MAX_PATHS the path read longest ago is forgotten, and the
# model must read it again before changing it.
RSpec.describe RubyLLM::FileStore::Reads do
  let(:store) { RubyLLM.file_store.memory }
  let(:reads) { described_class.new }
  let(:limit) { described_class::MAX_PATHS }

  it 'keeps at most MAX_PATHS paths, forgetting the one read longest ago' do
    paths = Array.new(limit + 500) { |i| "notes/#{i}.md" }
    paths.each do |path|
      store.write(path, path)
      reads.remember(store[path])
      store.delete(path) if path.end_with?('7.md') # deleted behind the record's back
    end
    expect(reads.size).to eq(limit)
    expect(reads.refusal(store.write(paths.first, 'again'))).to include('has not been read')
    expect(reads.refusal(store[paths.last])).to be_nil
  end

  it 'keeps a path read again, moving it to the end of the order' do
    store.write('kept.md', 'kept')
    reads.remember(store['kept.md'])
    limit.times do |i|
      store.write("#{i}.md", 'x')
      reads.remember(store["#{i}.md"])
      reads.remember(store['kept.md']) if (i % 100).zero?
    end
    expect(reads.refusal(store['kept.md'])).to be_nil
  end
end
