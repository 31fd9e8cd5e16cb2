# frozen_string_literal: true

require 'fileutils'
require 'tmpdir'

# The Rails 8.1 application falcon_check.rb serves with Falcon, set as production
# sets one (classes eager loaded, none reloaded) and with connections by fiber, as
# ruby_llm's guide for Async sets: SQLite and Active Storage's Disk service in a
# temporary folder, ruby_llm's acts_as_chat models (spec/support/acts_as_chat_db.rb)
# declaring this gem's store, and the chats' routes. Its controllers are in
# app/controllers beside this file, eager loaded as any app's.
ENV['RAILS_ENV'] = 'production'
require 'rails'
require 'active_record/railtie'
require 'active_storage/engine'
require 'action_controller/railtie'
# spec_helper loaded ruby_llm and the gem before Rails, so they did not load their
# railties; an app's Bundler.require loads them after Rails, railties and all.
require 'ruby_llm/railtie'
require 'ruby_llm/file_store/railtie'

class FalconChatsApp < Rails::Application
  ROOT = Dir.mktmpdir('ruby_llm_file_store_falcon')
  at_exit { FileUtils.rm_rf(ROOT) }
  FileUtils.mkdir_p(File.join(ROOT, 'config'))
  # A connection for each request being served (a fiber each), and more.
  File.write(File.join(ROOT, 'config', 'database.yml'), <<~YAML)
    production:
      adapter: sqlite3
      database: #{File.join(ROOT, 'production.sqlite3')}
      pool: 30
      timeout: 20000
  YAML
  File.write(File.join(ROOT, 'config', 'storage.yml'), <<~YAML)
    local:
      service: Disk
      root: #{File.join(ROOT, 'storage')}
  YAML

  config.load_defaults 8.1
  config.root = ROOT
  config.eager_load_paths << File.expand_path('app/controllers', __dir__)
  config.eager_load = true
  config.enable_reloading = false
  config.active_support.isolation_level = :fiber
  config.secret_key_base = 'ruby_llm-file_store falcon'
  config.logger = ActiveSupport::Logger.new($stderr)
  config.log_level = :error
  config.active_storage.service = :local
end
# No request here reaches a model; ruby_llm wants a provider configured all the same.
RubyLLM.configure { |config| config.openai_api_key ||= 'not used' }
Rails.application.initialize!

Rails.application.routes.draw do
  get 'chats/:id/read', to: 'chats#read'
  get 'chats/:id/run', to: 'chats#run'
  get 'chats/:id/files', to: 'chats#files'
end

ActiveRecord::Migration.verbose = false
ActiveStorageDB.create_active_storage_tables
ActsAsChatDB.create_tables_and_models
ActiveRecord::Migration.run(ChatFilesMigration.migration_class)
Conversation.file_store
