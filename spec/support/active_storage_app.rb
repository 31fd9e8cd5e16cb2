# frozen_string_literal: true

# What Active Storage's engine does for its app/ folder, for the specs' boot without a
# Rails application (ActiveStorageDB): on Rails 6.1 through the classic autoloader; on
# Rails 7 and later (7.2 from the gem kit, with RUBY_LLM_PATH), where Zeitwerk is the
# only autoloader, through a Zeitwerk loader of its own.
module ActiveStorageApp
  module_function

  def autoload
    app = File.expand_path('../../app', $LOAD_PATH.resolve_feature_path('active_storage').last)
    if ActiveSupport::VERSION::MAJOR < 7
      return ActiveSupport::Dependencies.autoload_paths.push(*%w[models jobs].map { |folder| File.join(app, folder) })
    end

    # The engine's isolate_namespace gives the models their table names.
    ActiveStorage.define_singleton_method(:table_name_prefix) { 'active_storage_' }
    ActiveStorage::Attached::Model.singleton_class.prepend(ServiceSetDirectly)
    require 'zeitwerk'
    loader = Zeitwerk::Loader.new
    %w[models jobs].each { |folder| loader.push_dir(File.join(app, folder)) }
    loader.setup
  end

  # has_one_attached checks that an application's config.active_storage.service
  # names a service; here ActiveStorage::Blob.service is set directly.
  module ServiceSetDirectly
    private

    def validate_global_service_configuration(_model_class) = nil
  end
end
