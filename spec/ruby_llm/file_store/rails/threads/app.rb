# frozen_string_literal: true

# A Rails application in one process, as Puma and the :async Active Job adapter run
# it: request threads writing a chat's files and threads doing with_lock
# read-modify-writes on the same chat, Active Storage analysing every blob on the job
# threads. Run by threads_spec.rb in a child process so a hang is killed, not waited
# for:
#
#   ruby app.rb ENV JOURNAL   # ENV: production | development, JOURNAL: delete | wal
#
# Prints one line of JSON with what it counted.
require 'fileutils'
require 'json'
require 'tmpdir'

RAILS_ENV = ARGV.fetch(0)
JOURNAL = ARGV.fetch(1)
ENV['RAILS_ENV'] = RAILS_ENV
WRITERS = Integer(ENV.fetch('WRITERS', 8))
WRITES = Integer(ENV.fetch('WRITES', 50))
LOCKERS = Integer(ENV.fetch('LOCKERS', 8))
INCREMENTS = Integer(ENV.fetch('INCREMENTS', 30))
ROOT = Dir.mktmpdir('ruby_llm_file_store_threads')
at_exit { FileUtils.rm_rf(ROOT) }

(ENV['RAILS_PATH'] || '').split(':').each do |set|
  Dir[File.join(set, '*', 'lib')].each { |lib| $LOAD_PATH.unshift(lib) }
end
$LOAD_PATH.unshift File.expand_path('../../../../../lib', __dir__)

FileUtils.mkdir_p(File.join(ROOT, 'config'))
FileUtils.mkdir_p(File.join(ROOT, 'app', 'models'))
File.write(File.join(ROOT, 'config', 'database.yml'), <<~YAML)
  #{RAILS_ENV}:
    adapter: sqlite3
    database: #{File.join(ROOT, 'app.sqlite3')}
    pool: #{WRITERS + LOCKERS + 4}
    timeout: 5000
    # Rails 7.1 and later set the journal mode on every new connection (WAL unless told).
    pragmas:
      journal_mode: #{JOURNAL}
YAML
File.write(File.join(ROOT, 'config', 'storage.yml'), "local:\n  service: Disk\n  root: #{File.join(ROOT, 'storage')}\n")
# The application's models, autoloaded (and reloaded in development) like any app's.
File.write(File.join(ROOT, 'app', 'models', 'chat.rb'), <<~RUBY)
  class Chat < ActiveRecord::Base
    include RubyLLM::ActiveRecord::ChatFiles
  end
RUBY
File.write(File.join(ROOT, 'app', 'models', 'user.rb'), "class User < ActiveRecord::Base\nend\n")

require 'rails'
require 'active_record/railtie'
require 'active_job/railtie'
require 'active_storage/engine'
require 'ruby_llm/file_store'

class ThreadsApp < Rails::Application
  config.root = ROOT
  config.eager_load = RAILS_ENV == 'production'
  config.cache_classes = RAILS_ENV == 'production'
  config.secret_key_base = 'ruby_llm-file_store threads'
  config.logger = Logger.new(File.join(ROOT, 'log.txt'))
  config.log_level = :warn
  config.active_storage.service = :local
  config.active_job.queue_adapter = :async
  config.active_record.legacy_connection_handling = false if Rails::VERSION::STRING.start_with?('6.1')
end
Rails.application.initialize!

connection = ActiveRecord::Base.connection
connection.execute("PRAGMA journal_mode = #{JOURNAL}")
ActiveRecord::Migration.verbose = false
ActiveRecord::Schema.define do
  create_table(:chats) { |t| t.string :title }
  create_table(:users) { |t| t.string :name }
end
Dir[File.join(ActiveStorage::Engine.root, 'db', 'migrate', '*.rb')].each do |file|
  before = ActiveRecord::Migration.descendants
  load file
  (ActiveRecord::Migration.descendants - before).each { |migration| migration.new.migrate(:up) }
end
template = File.expand_path(
  '../../../../../lib/generators/ruby_llm_file_store/templates/create_ruby_llm_chat_files.rb.tt', __dir__
)
migration_version = "[#{ActiveRecord::Migration.current_version}]"
migration_class_name = 'CreateRubyLLMChatFiles' # read by the template
before = ActiveRecord::Migration.descendants
eval(ERB.new(File.read(template), trim_mode: '-').result(binding), TOPLEVEL_BINDING, template) # rubocop:disable Security/Eval
(ActiveRecord::Migration.descendants - before).each { |migration| migration.new.migrate(:up) }

# Every exception on every thread, the job threads' included.
errors = Queue.new
ActiveSupport::Notifications.subscribe('perform.active_job') do |*, payload|
  if payload[:exception_object]
    errors << "job: #{payload[:exception_object].class}: #{payload[:exception_object].message}"
  end
end

chat_id, user_id = Rails.application.executor.wrap do
  chat = Chat.create!(title: 'threads')
  RubyLLM.file_store.active_storage(chat).write('counter.txt', '0')
  [chat.id, User.create!(name: 'Dana').id]
end

# One request: what ActionDispatch's executor and reloader wrap around each.
request = lambda do |&block|
  Rails.application.reloader.wrap { block.call(Chat.find(chat_id), User.find(user_id)) }
rescue Exception => e # rubocop:disable Lint/RescueException
  errors << "#{e.class}: #{e.message}\n  #{e.backtrace.first(8).join("\n  ")}"
end

go = Queue.new
threads = Array.new(WRITERS) do |t|
  Thread.new do
    go.pop
    WRITES.times do |i|
      request.call do |chat, user|
        owner = i.odd? ? user : nil
        RubyLLM.file_store.active_storage(chat, owner:).write("w#{t}/#{i}.txt", "thread #{t} write #{i}")
      end
    end
  end
end
threads += Array.new(LOCKERS) do
  Thread.new do
    go.pop
    INCREMENTS.times do
      request.call do |chat|
        store = RubyLLM.file_store.active_storage(chat)
        store.with_lock do
          value = Integer(store.read('counter.txt'))
          sleep 0.001
          store.write('counter.txt', (value + 1).to_s)
        end
      end
    end
  end
end
# In development, an edited model is reloaded between requests, as it is there. The
# edit replaces the file whole, as an editor saves it: File.write would truncate it
# first, and a request that reloads the model in that instant would load an empty
# file, and the autoloader, which marks a file loaded before loading it, would then
# fail every later request with "expected user.rb to define it" (seen once in 20 runs).
reloads = 0
if RAILS_ENV == 'development'
  threads << Thread.new do
    go.pop
    6.times do
      sleep 0.3
      path = File.join(ROOT, 'app', 'models', 'user.rb')
      File.write("#{path}.tmp", "#{File.read(path)}\n")
      File.utime(Time.now + reloads + 1, Time.now + reloads + 1, "#{path}.tmp")
      File.rename("#{path}.tmp", path)
      reloads += 1
    end
  end
end
started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
threads.size.times { go << true }
threads.each(&:join)
ActiveJob::Base.queue_adapter.instance_variable_get(:@scheduler)&.executor&.then do |pool|
  pool.shutdown
  pool.wait_for_termination(30)
end
seconds = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started

result = Rails.application.executor.wrap do
  chat = Chat.find(chat_id)
  files = RubyLLM::ActiveRecord::ChatFile.where(chat_id:)
  {
    rails: Rails::VERSION::STRING, env: RAILS_ENV, journal: ActiveRecord::Base.connection.select_value('PRAGMA journal_mode'),
    seconds: seconds.round(2), reloads:,
    files: files.count, counter: RubyLLM.file_store.active_storage(chat).read('counter.txt').to_i,
    duplicates: files.group(:owner_key, :path).having('COUNT(*) > 1').count.size,
    orphans: ActiveStorage::Blob.where.not(id: ActiveStorage::Attachment.select(:blob_id)).count,
    analyzed: ActiveStorage::Blob.all.count(&:analyzed?), blobs: ActiveStorage::Blob.count,
    errors: Array.new(errors.size) { errors.pop }
  }
end
puts JSON.generate(result)
