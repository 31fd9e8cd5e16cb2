# frozen_string_literal: true

require 'tmpdir'

# read_file of a converted file records the version whose text it showed: a file
# rewritten while it was being converted is not taken as read.
RSpec.describe 'read_file of a converted file', :native do
  around do |example|
    Dir.mktmpdir { |dir| @dir = dir and example.run }
  end

  let(:store) { RubyLLM.file_store.directory(@dir) }
  let(:path) { File.join(@dir, 'q3.pdf') }

  # A converter during which another writer replaces the file with content of the
  # same size and keeps its time, as `cp -p` or a coarse clock would.
  def swapping_converter
    lambda do |attachment|
      text = "text of #{attachment.content}"
      time = File.mtime(path)
      File.binwrite(path, 'B' * 10)
      File.utime(time, time, path)
      text
    end
  end

  def tools(converter)
    config = Struct.new(:file_converters).new({ 'application/pdf' => converter })
    [RubyLLM::FileStore::Tools::ReadFile.new(store, config:), RubyLLM::FileStore::Tools::WriteFile.new(store, config:)]
  end

  it 'records the version it converted, so a change made meanwhile is not overwritten' do
    store.write('q3.pdf', 'A' * 10)
    read_file, write_file = tools(swapping_converter)
    expect(read_file.call(path: 'q3.pdf')).to include('text of AAAAAAAAAA')
    expect(write_file.call(path: 'q3.pdf', content: 'mine'))
      .to eq('Error: q3.pdf changed since it was read. Read it again with read_file before changing it.')
    expect(File.binread(path)).to eq('B' * 10)
  end

  it 'does not keep the text of one version as the conversion of another' do
    store.write('q3.pdf', 'A' * 10)
    read_file, = tools(swapping_converter)
    read_file.call(path: 'q3.pdf')
    config = Struct.new(:file_converters).new({ 'application/pdf' => ->(file) { "text of #{file.content}" } })
    expect(store.text('q3.pdf', config:)).to eq("text of #{'B' * 10}")
  end

  it 'lets the model change the file it read when nothing changed' do
    store.write('q3.pdf', 'A' * 10)
    read_file, write_file = tools(->(file) { "text of #{file.content}" })
    read_file.call(path: 'q3.pdf')
    expect(write_file.call(path: 'q3.pdf', content: 'mine')).to start_with('Wrote q3.pdf')
  end
end
