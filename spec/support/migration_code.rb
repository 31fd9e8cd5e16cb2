# frozen_string_literal: true

# The Ruby a child process runs to migrate the folder +path+ as db:migrate does, on the
# Rails it loads: MigrationContext takes the schema migration class up to Rails 7.0 and
# finds it itself from 7.1.
module MigrationCode
  module_function

  def migrate(path)
    'context = ActiveRecord.version >= Gem::Version.new("7.1") ? ' \
      "ActiveRecord::MigrationContext.new(#{path.inspect}) : " \
      "ActiveRecord::MigrationContext.new(#{path.inspect}, ActiveRecord::SchemaMigration)\n" \
      'context.migrate'
  end
end
