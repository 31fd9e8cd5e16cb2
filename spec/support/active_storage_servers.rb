# frozen_string_literal: true

# The servers bin/test-databases starts (bin/db-servers): which database and S3 server
# the :rails specs use instead of SQLite and the Disk service, when set.
module ActiveStorageServers
  module_function

  # RUBY_LLM_FILE_STORE_DATABASE_URL runs the :rails specs on that database instead
  # (bin/test-databases: PostgreSQL, MariaDB), from empty tables.
  def url
    ENV.fetch('RUBY_LLM_FILE_STORE_DATABASE_URL', nil)
  end

  # RUBY_LLM_FILE_STORE_S3_ENDPOINT keeps the blobs in a bucket of that S3 server.
  def s3_endpoint
    ENV.fetch('RUBY_LLM_FILE_STORE_S3_ENDPOINT', nil)
  end

  # The acts_as_chat specs' tables (ActsAsChatDB) first, for their foreign keys.
  TABLES = %w[conversation_messages conversations ruby_llm_tool_calls ruby_llm_usages ruby_llm_models
              ruby_llm_chat_files ruby_llm_chat_files_waiting active_storage_variant_records active_storage_attachments
              active_storage_blobs messages chats users teams].freeze

  def drop_tables
    connection = ActiveRecord::Base.connection
    TABLES.each { |table| connection.drop_table(table, if_exists: true) }
  end

  # Every row and every stored object gone: for the examples that count what is left
  # over in the whole database and service, which the examples run before them (in
  # random order, a storm of kill -9 among them) would otherwise have filled.
  def empty!
    connection = ActiveRecord::Base.connection
    TABLES.select { |table| connection.table_exists?(table) }
          .each { |table| connection.delete("DELETE FROM #{connection.quote_table_name(table)}") }
    if s3_endpoint
      ActiveStorage::Blob.service.bucket.objects.each(&:delete)
    else
      FileUtils.rm_rf(Dir[File.join(ActiveStorageDB.blob_root, '*')])
    end
  end

  def service_configuration(blob_root)
    return { service: 'Disk', root: blob_root } unless s3_endpoint

    require 'aws-sdk-s3'
    # A Rails application loads every core extension; Active Storage's S3 service needs this one.
    require 'active_support/core_ext/object/inclusion'
    bucket = "ruby-llm-file-store-#{Process.pid}"
    options = { endpoint: s3_endpoint, force_path_style: true, region: 'us-east-1',
                access_key_id: 'test', secret_access_key: 'test' }
    Aws::S3::Client.new(**options).create_bucket(bucket:)
    { service: 'S3', bucket:, **options }
  end

  # Waits, on S3, until no object has come or gone for 2 seconds (20 at most): an
  # upload stopped in flight can be stored by the server after the store deleted its
  # key, later still when the machine is busy. Tidy, which removes its row and object,
  # runs a day after such an upload in an app; a spec that runs it at once waits for
  # the server first, or the object stored after Tidy is counted as left over.
  def settle
    return unless s3_endpoint

    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 20
    keys = stored_keys.sort
    loop do
      sleep 2
      now = stored_keys.sort
      break if now == keys || Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline

      keys = now
    end
  end

  # The keys of the stored objects that no blob row names: nothing finds them, and
  # RubyLLM::ActiveRecord::Tidy removes only what a row of the store's names.
  def objects_without_row
    stored_keys - ActiveStorage::Blob.pluck(:key)
  end

  # The keys of the objects in the S3 bucket, or of the files on the Disk service.
  def stored_keys
    service = ActiveStorage::Blob.service
    if s3_endpoint
      service.bucket.objects.map(&:key)
    else
      Dir[File.join(ActiveStorageDB.blob_root, '**', '*')].select { |path| File.file?(path) }.map { |path| File.basename(path) }
    end
  end
end
