# frozen_string_literal: true

# The Active Storage store on each database: writes per second, list latency,
# search_files and read_file over a chat of FILES files (their converted text cached
# in the rows), and what with_lock costs when 8 threads contend for one chat. Run by
# hand from the gem's folder after `rake compile`, once per database, then compare:
#
#   ruby bench/rails.rb                                    # SQLite (WAL), Disk service
#   ruby bench/rails.rb "$PG_URL"                          # PostgreSQL, from bin/db-servers
#   ruby bench/rails.rb "$MYSQL_URL"                       # MariaDB
#   FILES=1000 ruby bench/rails.rb                         # a smoke run
#
# bin/db-servers start DIR starts those servers and prints their URLs (and an
# S3_ENDPOINT: RUBY_LLM_FILE_STORE_S3_ENDPOINT=that keeps the blobs in a bucket there).
# Each run prints its figures and, with BASELINE=path/to/sqlite.json, ratios against
# the SQLite run. EXPLAIN=1 also prints the database's plan for each distinct query
# the store runs (list, a folder, read_file, search_files, write, delete, with_lock).
$LOAD_PATH.unshift(File.expand_path('../lib', __dir__))
ENV['RUBY_LLM_FILE_STORE_DATABASE_URL'] = "#{ARGV[0]}?pool=20" if ARGV[0]
require 'rspec/core' # the spec support files register their hooks with RSpec
require 'json'
# ruby_llm, which the gem requires, as the specs find it (RUBY_LLM_PATH, else ../shared/gems).
require_relative '../spec/ruby_llm_path'
RubyLLMPath.load!
require 'ruby_llm/file_store'
require_relative '../spec/support/active_storage_app'
require_relative '../spec/support/active_storage_db'
require_relative '../spec/support/active_storage_servers'
require_relative '../spec/support/rails_models'

FILES = Integer(ENV.fetch('FILES', 10_000))
WRITES = Integer(ENV.fetch('WRITES', 300))

def seconds
  started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  yield
  Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
end

def best(runs = 5, &block)
  Array.new(runs) { seconds(&block) }.min
end

ActiveStorageDB.setup!
RailsModels.define
database = ActiveRecord::Base.connection.adapter_name
chat = Chat.create!(model_id: 'bench')
store = RubyLLM.file_store.active_storage(chat)

# Writes through the store, one after another.
write_time = seconds { WRITES.times { |i| store.write("written/#{i}.md", "# Note #{i}\nline two\n") } }

# The rest of the chat's files in bulk: documents whose converted text is cached in
# their rows, all pointing at one blob, so searching reads the rows, not the service.
blob = ActiveStorage::Blob.create_and_upload!(io: StringIO.new("%PDF-1.4\n"), filename: 'x.pdf', identify: false)
digest = Digest::SHA256.hexdigest("%PDF-1.4\n")
now = Time.now
rows = Array.new(FILES - WRITES) do |i|
  text = "# Report #{i}\n#{"Revenue rose in quarter #{i % 4} across the region.\n" * 20}"
  text += "The notice period is 90 days.\n" if (i % 1000).zero?
  { chat_type: 'Chat', chat_id: chat.id, owner_key: '', path: "reports/#{i / 100}/r#{i}.pdf",
    content_type: 'application/pdf', byte_size: 9, digest:, text:, created_at: now, updated_at: now }
end
rows.each_slice(1000) { |slice| RubyLLM::ActiveRecord::ChatFile.insert_all(slice) }
ids = RubyLLM::ActiveRecord::ChatFile.where(chat_id: chat.id, content_type: 'application/pdf').pluck(:id)
ids.each_slice(1000) do |slice|
  ActiveStorage::Attachment.insert_all(slice.map do |id|
    { name: 'file', record_type: 'RubyLLM::ActiveRecord::ChatFile', record_id: id, blob_id: blob.id, created_at: now }
  end)
end

read = RubyLLM::FileStore::Tools::ReadFile.new(store)
search = RubyLLM::FileStore::Tools::SearchFiles.new(store)
figures = {
  database:, files: RubyLLM::ActiveRecord::ChatFile.where(chat_id: chat.id).count,
  writes_per_second: (WRITES / write_time).round(1),
  list_seconds: best { store.list },
  list_folder_seconds: best { store.list('reports/7') },
  read_file_seconds: best { read.call(path: 'written/7.md') },
  search_files_seconds: best(3) { search.call(pattern: 'notice period') }
}

# The plan of every distinct query the store sends for its operations, with the
# files of 100 other chats in the table, as in an application, and once the database
# knows the table's statistics.
if ENV['EXPLAIN']
  connection = ActiveRecord::Base.connection
  others = Array.new(100) { |i| { model_id: "other #{i}", created_at: now, updated_at: now } }
  Chat.insert_all(others)
  Chat.where.not(id: chat.id).pluck(:id).each do |other|
    RubyLLM::ActiveRecord::ChatFile.insert_all(Array.new(100) do |i|
      { chat_type: 'Chat', chat_id: other, owner_key: '', path: "reports/#{i / 10}/r#{i}.pdf", byte_size: 9,
        created_at: now, updated_at: now }
    end)
  end
  connection.execute(database == 'PostgreSQL' ? 'ANALYZE' : 'ANALYZE TABLE ruby_llm_chat_files') unless
    database == 'SQLite'
  queries = {}
  subscriber = ActiveSupport::Notifications.subscribe('sql.active_record') do |*, payload|
    sql = payload[:sql]
    next unless sql.match?(/\A\s*(SELECT|UPDATE|DELETE)/i)

    queries[sql.gsub(/'(?:[^']|'')*'|\b\d+\b/, '?')] ||= [sql, payload[:binds]]
  end
  store.list
  store.list('reports/7')
  read.call(path: 'reports/7/r742.pdf')
  search.call(pattern: 'notice period')
  store.write('explained/a.md', 'a')
  store.with_lock { store.write('explained/a.md', "#{store.read('explained/a.md')}b") }
  store.delete('explained/a.md')
  ActiveSupport::Notifications.unsubscribe(subscriber)
  queries.each_value do |sql, binds|
    puts "\n#{sql}", connection.explain(sql, binds || [])
  end
end

# with_lock read-modify-writes: one thread alone, then 8 threads on one chat.
store.write('counter.txt', '0')
increment = lambda do
  store.with_lock { store.write('counter.txt', (Integer(store.read('counter.txt')) + 1).to_s) }
end
alone = seconds { 80.times { increment.call } }
contended = seconds { Array.new(8) { Thread.new { 10.times { increment.call } } }.each(&:join) }
raise 'lost an increment' unless store.read('counter.txt') == '160'

figures[:with_lock_ms_alone] = (alone / 80 * 1000).round(2)
figures[:with_lock_ms_8_threads] = (contended / 80 * 1000).round(2)
figures.transform_values! { |value| value.is_a?(Float) && value < 10 ? value.round(4) : value }
puts JSON.generate(figures)
if ENV['BASELINE']
  base = JSON.parse(File.read(ENV['BASELINE']))
  figures.each do |name, value|
    next unless value.is_a?(Numeric) && base[name.to_s].is_a?(Numeric) && base[name.to_s].positive?

    puts "#{name.to_s.ljust(26)} #{value.to_s.rjust(10)}  #{(value / base[name.to_s]).round(2)}x SQLite"
  end
end
