# frozen_string_literal: true

# The Rails store's classes: the public ones under RubyLLM::ActiveRecord, as
# applications and their tables name them; the machinery under the gem, in a
# constant no store an application writes would mistake for the framework.
RSpec.describe 'The Rails store namespaces', :rails do
  it 'keeps the public names, and ChatFile the name its attachments store' do
    store = RubyLLM.file_store.active_storage(Chat.create!(model_id: 'gpt-4.1-mini'))
    expect(store.class.name).to eq('RubyLLM::ActiveRecord::FileStore')
    expect(RubyLLM::ActiveRecord::ChatFiles).to be_a(Module)
    store.write('a.md', 'a')
    expect(ActiveStorage::Attachment.last.record_type).to eq('RubyLLM::ActiveRecord::ChatFile')
  end

  it 'keeps its machinery out of RubyLLM::ActiveRecord, which is ruby_llm\'s' do
    RubyLLM.file_store.active_storage(Chat.create!(model_id: 'gpt-4.1-mini')).write('a.md', 'a')
    ours = %i[Atomically AttachmentSource ChatLock Interrupts SQLiteWait Tidying Upload View]
    expect(RubyLLM::FileStore::RailsStore.constants).to include(*ours)
    expect(RubyLLM::ActiveRecord.constants & ours).to eq([])
  end

  it 'leaves Rails, Chat and ActiveStorage to the application in a store it writes' do
    stub_const('BucketStore', Class.new(RubyLLM::FileStore))
    # A class body of the application's, where constants resolve through FileStore.
    BucketStore.class_eval(<<~RUBY, __FILE__, __LINE__ + 1)
      def self.names = [defined?(Rails) && Rails, defined?(Chat) && Chat, defined?(ActiveStorage) && ActiveStorage]
    RUBY
    expect(BucketStore.names).to eq([defined?(::Rails) && ::Rails, ::Chat, ::ActiveStorage])
    expect(RubyLLM::FileStore.constants & %i[Rails Chat ActiveStorage ActiveRecord]).to eq([])
  end
end
