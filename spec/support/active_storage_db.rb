# frozen_string_literal: true

require 'fileutils'
require 'tmpdir'

# A real Active Record and Active Storage for the specs tagged :rails: a SQLite
# database in a temporary file (not :memory:, which every connection of the pool
# would see as a different, empty database), Active Storage's tables, and the Disk
# service on a temporary folder. Active Storage runs without its Rails engine here,
# so this file does what the engine's initializers would: it puts Active Storage's
# models on the autoload path and mixes has_one_attached into Active Record.
module ActiveStorageDB
  ROOT = Dir.mktmpdir('ruby_llm_file_store_rails')
  at_exit { FileUtils.rm_rf(ROOT) }

  module_function

  def available?
    return @available unless @available.nil?

    require 'openssl' # Active Storage 7 names OpenSSL::Digest on load; Rails itself loads it first
    require 'active_record'
    require 'active_storage'
    require 'sqlite3'
    @available = true
  rescue LoadError => e
    @load_error = e.message
    @available = false
  end

  def load_error
    @load_error
  end

  def database
    File.join(ROOT, 'test.sqlite3')
  end

  def setup!
    return if @set_up
    raise LoadError, load_error unless available?

    boot_active_storage
    if ActiveStorageServers.url
      ActiveRecord::Base.establish_connection(ActiveStorageServers.url)
      ActiveStorageServers.drop_tables
    else
      ActiveRecord::Base.establish_connection(adapter: 'sqlite3', database:, pool: 16, timeout: 20_000)
      # Write-ahead logging, as Rails 7.1 and later set up SQLite: readers do not wait
      # for a writer. The setting stays with the database file.
      ActiveRecord::Base.connection.execute('PRAGMA journal_mode = WAL')
    end
    ActiveRecord::Migration.verbose = false
    create_active_storage_tables
    RailsModels.create_tables
    ActiveRecord::Migration.run(ChatFilesMigration.migration_class)
    @set_up = true
  end

  def boot_active_storage
    require 'active_job'
    require 'active_storage/attached'
    require 'active_storage/reflection'
    require 'active_storage/service/registry'
    ActiveStorageApp.autoload
    ActiveRecord::Base.include(ActiveStorage::Attached::Model)
    ActiveRecord::Base.include(ActiveStorage::Reflection::ActiveRecordExtensions)
    ActiveRecord::Reflection.singleton_class.prepend(ActiveStorage::Reflection::ReflectionExtension)
    ActiveStorage.verifier = ActiveSupport::MessageVerifier.new('ruby_llm-file_store specs')
    global_ids
    quiet_jobs
    ActiveStorage::Blob.services = ActiveStorage::Service::Registry.new(test: ActiveStorageServers.service_configuration(blob_root))
    ActiveStorage::Blob.service = ActiveStorage::Blob.services.fetch(:test)
    # Loaded now, not by the first of several threads at once: Rails 6.1's classic
    # autoloader is not thread-safe, and these threads run outside an executor, which
    # in an application would load them one at a time.
    ActiveStorage::Attachment.name
  end

  # Records passed to jobs (a blob to purge) by their GlobalID, as Active Job's railtie
  # sets it up in an application.
  def global_ids
    require 'global_id'
    GlobalID.app ||= 'ruby-llm-file-store-specs'
    ActiveRecord::Base.include(GlobalID::Identification)
  end

  # Jobs (blob analysis) are enqueued and left, as a test adapter does; no logs.
  def quiet_jobs
    ActiveStorage.logger = ActiveRecord::Base.logger = Logger.new(nil)
    ActiveJob::Base.queue_adapter = :test
    ActiveJob::Base.logger = Logger.new(nil)
  end

  def blob_root
    File.join(ROOT, 'blobs')
  end

  # Active Storage 6.1's own migration asks Rails.configuration for the key type,
  # which needs a Rails application; these are its tables as it creates them.
  def create_active_storage_tables
    ActiveRecord::Schema.define do
      create_table :active_storage_blobs do |t|
        t.string :key, :filename, null: false
        t.string :content_type
        t.text :metadata
        t.string :service_name, null: false
        t.bigint :byte_size, null: false
        t.string :checksum, null: false
        t.datetime :created_at, null: false
        t.index [:key], unique: true
      end
    end
    create_active_storage_attachment_tables
  end

  def create_active_storage_attachment_tables
    ActiveRecord::Schema.define do
      create_table :active_storage_attachments do |t|
        t.string :name, null: false
        t.references :record, null: false, polymorphic: true, index: false
        t.references :blob, null: false
        t.datetime :created_at, null: false
        t.index %i[record_type record_id name blob_id], name: 'index_active_storage_attachments_uniqueness',
                                                        unique: true
        t.foreign_key :active_storage_blobs, column: :blob_id
      end
      create_table :active_storage_variant_records do |t|
        t.belongs_to :blob, null: false, index: false
        t.string :variation_digest, null: false
        t.index %i[blob_id variation_digest], name: 'index_active_storage_variant_records_uniqueness', unique: true
        t.foreign_key :active_storage_blobs, column: :blob_id
      end
    end
  end
end

module ChatFilesMigration
  # The generator's migration template, rendered as an application would get it.
  def self.migration_class
    require 'erb'
    template = File.expand_path('../../lib/generators/ruby_llm_file_store/templates/create_ruby_llm_chat_files.rb.tt',
                                __dir__)
    migration_version = "[#{ActiveRecord::Migration.current_version}]"
    migration_class_name = 'CreateRubyLLMChatFiles' # read by the template
    source = ERB.new(File.read(template), trim_mode: '-').result(binding)
    namespace = Module.new
    namespace.module_eval(source, template, 1)
    namespace.constants.map { |name| namespace.const_get(name) }.find { |found| found < ActiveRecord::Migration }
  end
end

RSpec.configure do |config|
  config.before(:context, :rails) do
    skip "needs Active Record, Active Storage and sqlite3: #{ActiveStorageDB.load_error}" unless
      ActiveStorageDB.available?

    ActiveStorageDB.setup!
  end
end
