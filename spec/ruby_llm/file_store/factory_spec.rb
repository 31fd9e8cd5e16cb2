# frozen_string_literal: true

RSpec.describe RubyLLM::FileStore::Factory do
  include TmpDirHelper

  it 'builds a memory store' do
    expect(RubyLLM.file_store.memory).to be_a(RubyLLM::FileStore::Memory)
    expect(RubyLLM.file_store.memory).not_to equal(RubyLLM.file_store.memory)
  end

  it 'builds a directory store, creating the folder' do
    store = RubyLLM.file_store.directory(File.join(tmp_dir, 'a/b'))
    expect(store).to be_a(RubyLLM::FileStore::Directory)
    expect(File.directory?(File.join(tmp_dir, 'a/b'))).to be(true)
  end

  it 'returns the text converter, which reads any file as it is' do
    converter = RubyLLM.file_store.converter.text
    attachment = RubyLLM::FileStore::Converters.attachment("1\n00:00:01 --> 00:00:02\nHello".b, filename: 'a.srt')
    expect(converter.call(attachment)).to eq("1\n00:00:01 --> 00:00:02\nHello")
  end
end
