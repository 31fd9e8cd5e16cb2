# frozen_string_literal: true

require 'stringio'
require 'tmpdir'

# Writers killed with kill -9 (no ensure runs) at random points leave objects with no
# row, blob rows nothing uses and spooled temporary files; one run of
# RubyLLM::ActiveRecord::Tidy removes all of it and nothing a file uses. On SQLite here,
# on PostgreSQL and MariaDB with S3 in bin/test-databases.
RSpec.describe 'RubyLLM::ActiveRecord::Tidy', :rails do
  let(:tidy) { RubyLLM::ActiveRecord::Tidy }
  let(:chat) { Chat.create!(model_id: 'gpt-4.1-mini') }
  let(:random) { Random.new(RSpec.configuration.seed) }

  around do |example|
    Dir.mktmpdir('ruby_llm_file_store_tidy') do |dir|
      before = ENV.fetch('TMPDIR', nil)
      ENV['TMPDIR'] = dir
      example.run
    ensure
      ENV['TMPDIR'] = before
    end
  end

  def debris
    keys = ActiveStorage::Blob.pluck(:key)
    { unattached: ActiveStorage::Blob.where.not(id: ActiveStorage::Attachment.select(:blob_id)).count,
      objects_without_row: (ActiveStorageServers.stored_keys - keys).size,
      temporary_files: Dir[File.join(Dir.tmpdir, 'ruby_llm_chat_file*')].size }
  end

  # A process that writes, deletes and edits in with_lock until it is killed.
  def writer(seed)
    fork do
      rng = Random.new(seed)
      store = RubyLLM.file_store.active_storage(Chat.find(chat.id))
      loop do
        path = "f#{rng.rand(4)}.txt"
        content = ('x' * rng.rand(100_000..400_000)).b
        case rng.rand(4)
        when 0 then store.write(path, content)
        when 1 then store.write(path, StringIO.new(content))
        when 2 then store.delete(path)
        else store.with_lock { store.write(path, content) }
        end
      end
    rescue Exception # rubocop:disable Lint/RescueException
      exit!(0)
    end
  end

  it 'removes everything 30 rounds of kill -9 leave, and nothing a file uses', :slow do
    30.times do |round|
      pids = Array.new(3) { |i| writer(RSpec.configuration.seed + (round * 3) + i) }
      sleep random.rand(0.05..0.5)
      pids.each do |pid|
        Process.kill(:KILL, pid)
        Process.wait(pid)
      end
    end
    sleep 1.1 # MariaDB keeps whole seconds, and may round created_at up
    left = debris
    warn "kill -9 left: #{left}" if ENV['VERBOSE']

    removed = tidy.run(older_than: 0)
    expect(removed.values_at(:blobs, :objects, :temporary_files))
      .to eq(left.values_at(:unattached, :objects_without_row, :temporary_files))
    expect(debris).to eq(unattached: 0, objects_without_row: 0, temporary_files: 0)
    store = RubyLLM.file_store.active_storage(chat)
    store.list.each do |file|
      expect(Digest::SHA256.hexdigest(store.read(file.path))).to eq(file.digest)
    end
  end

  it 'leaves what is younger than its age' do
    blob = ActiveStorage::Blob.create_and_upload!(io: StringIO.new('fresh'), filename: 'fresh.txt')
    spooled = File.join(Dir.tmpdir, 'ruby_llm_chat_file-fresh')
    File.write(spooled, 'x')
    tidy.run(older_than: 60)
    expect([ActiveStorage::Blob.exists?(blob.id), ActiveStorageServers.stored_keys.include?(blob.key),
            File.exist?(spooled)]).to eq([true, true, true])
    sleep 1.1 # MariaDB keeps whole seconds, and may round created_at up
    tidy.run(older_than: 0)
    expect([ActiveStorage::Blob.exists?(blob.id), ActiveStorageServers.stored_keys.include?(blob.key),
            File.exist?(spooled)]).to eq([false, false, false])
  end
end
