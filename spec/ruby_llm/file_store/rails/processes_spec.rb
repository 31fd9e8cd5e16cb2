# frozen_string_literal: true

# Two real processes (fork) against one SQLite database file: what the unique index
# and the lock on the chat's row promise across processes.
RSpec.describe 'RubyLLM::ActiveRecord::FileStore across processes', :rails do
  let!(:chat) { Chat.create!(model_id: 'gpt-4.1-mini') }

  # Forks +count+ children that each wait for the same signal and then run the block
  # with their index; returns their exit statuses. A child reports a failure by its
  # status and its stderr.
  def race(count)
    reader, writer = IO.pipe
    pids = Array.new(count) do |index|
      fork do
        writer.close
        reader.read(1)
        yield index
        exit!(0)
      rescue Exception => e # rubocop:disable Lint/RescueException
        warn "child #{index}: #{e.class}: #{e.message}\n#{e.backtrace.grep(/wt-rails/).first(6).join("\n")}"
        exit!(1)
      end
    end
    reader.close
    writer.write('go' * count)
    writer.close
    pids.map { |pid| Process.wait2(pid).last.exitstatus }
  end

  [nil, 'an owner'].each do |owned|
    it "leaves one row and one of two whole contents when two processes write a path at once#{if owned
                                                                                                " (#{owned})"
                                                                                              end}" do
      owner = owned && User.create!(name: 'Dana')
      contents = [('A' * 3_000_000).b, ('B' * 2_000_000).b]
      5.times do |round|
        path = "same-#{round}.txt"
        statuses = race(2) { |i| RubyLLM.file_store.active_storage(Chat.find(chat.id), owner:).write(path, contents[i]) }
        expect(statuses).to eq([0, 0])

        rows = RubyLLM::ActiveRecord::ChatFile.where(chat_id: chat.id, path:).to_a
        expect(rows.size).to eq(1)
        content = RubyLLM.file_store.active_storage(chat, owner:).read(path)
        expect(contents).to include(content)
        expect(rows.first.digest).to eq(Digest::SHA256.hexdigest(content))
        expect(rows.first.byte_size).to eq(content.bytesize)
      end
      orphans = ActiveStorage::Blob.where.not(id: ActiveStorage::Attachment.select(:blob_id))
      expect(orphans.where('filename LIKE ?', 'same-%').count).to eq(0)
    end
  end

  it 'keeps the read-modify-write cycles of two processes from interleaving in with_lock' do
    RubyLLM.file_store.active_storage(chat).write('counter.txt', '0')
    statuses = race(2) do
      store = RubyLLM.file_store.active_storage(Chat.find(chat.id))
      20.times do
        store.with_lock do
          value = store.read('counter.txt').to_i
          sleep 0.001
          store.write('counter.txt', (value + 1).to_s)
        end
      end
    end
    expect(statuses).to eq([0, 0])
    expect(RubyLLM.file_store.active_storage(chat).read('counter.txt')).to eq('40')
  end
end
