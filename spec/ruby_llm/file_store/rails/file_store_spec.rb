# frozen_string_literal: true

RSpec.describe 'RubyLLM::ActiveRecord::FileStore', :rails do
  let(:chat) { Chat.create!(model_id: 'gpt-4.1-mini') }

  context 'without an owner' do
    it_behaves_like 'a RubyLLM file store' do
      let(:store) { RubyLLM.file_store.active_storage(chat) }
    end
  end

  context 'with an owner' do
    it_behaves_like 'a RubyLLM file store' do
      let(:store) { RubyLLM.file_store.active_storage(chat, owner: User.create!(name: 'Dana')) }
    end
  end
end
