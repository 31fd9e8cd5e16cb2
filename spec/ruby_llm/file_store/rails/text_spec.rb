# frozen_string_literal: true

RSpec.describe 'RubyLLM::ActiveRecord::FileStore text', :rails do
  let(:chat) { Chat.create!(model_id: 'gpt-4.1-mini') }
  let(:calls) { [] }
  let(:config) do
    seen = calls
    Struct.new(:file_converters).new({ 'application/pdf' => ->(file) { (seen << file.filename) && "text of #{file.filename}" } })
  end

  it 'keeps the converted text in the row and reads it back in another store, and process, without converting' do
    RubyLLM.file_store.active_storage(chat).write('report.pdf', '%PDF-1.7')
    row = RubyLLM::ActiveRecord::ChatFile.find_by!(chat_id: chat.id, path: 'report.pdf')
    updated_at = row.updated_at

    expect(RubyLLM.file_store.active_storage(chat).text('report.pdf', config:)).to eq('text of report.pdf')
    expect(RubyLLM.file_store.active_storage(Chat.find(chat.id)).text('report.pdf', config:))
      .to eq('text of report.pdf')
    expect(calls).to eq(['report.pdf'])
    expect(row.reload.text).to eq('text of report.pdf')
    expect(row.updated_at).to eq(updated_at)
  end

  it 'converts a new version again, and an owner reads the text of the version it sees' do
    shared = RubyLLM.file_store.active_storage(chat)
    mine = RubyLLM.file_store.active_storage(chat, owner: User.create!(name: 'Dana'))
    shared.write('report.pdf', '%PDF-1.7 shared')
    expect(mine.text('report.pdf', config:)).to eq('text of report.pdf')
    mine.write('report.pdf', '%PDF-1.7 mine')
    expect(RubyLLM::ActiveRecord::ChatFile.where(chat_id: chat.id).order(:owner_key).pluck(:text))
      .to eq(['text of report.pdf', nil])
    expect(mine.text('report.pdf', config:)).to eq('text of report.pdf')
    expect(calls.size).to eq(2)
    shared.write('report.pdf', '%PDF-1.7 shared v2')
    expect(RubyLLM::ActiveRecord::ChatFile.find_by!(chat_id: chat.id, owner_key: '').text).to be_nil
  end

  it 'searches the texts kept in many rows with a query a batch, not two a file, and converts none again' do
    store = RubyLLM.file_store.active_storage(chat)
    30.times { |i| store.write("reports/r#{i}.pdf", "%PDF-1.7 #{i}") }
    30.times { |i| store.text("reports/r#{i}.pdf", config:) }
    calls.clear
    queries = []
    counting = ActiveSupport::Notifications.subscribe('sql.active_record') do |*, payload|
      queries << payload[:sql] unless %w[SCHEMA TRANSACTION].include?(payload[:name])
    end
    result = RubyLLM::FileStore::Tools::SearchFiles.new(store, config:).call(pattern: 'text of r17\.pdf')
    ActiveSupport::Notifications.unsubscribe(counting)

    expect(result).to start_with('reports/r17.pdf:1: text of r17.pdf')
    expect(calls).to be_empty
    # The listing, and one query for the 30 texts; reading each file's row and text
    # on its own made 60 more.
    expect(queries.size).to be <= 3, queries.join("\n")
  end
end
