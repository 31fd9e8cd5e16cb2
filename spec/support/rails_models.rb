# frozen_string_literal: true

# The application's side of the Rails specs: a chat, its messages with an attachment
# each may have, and the users and teams that own files. Defined once the database is
# there (ActiveStorageDB), as an application's models would be.
module RailsModels
  module_function

  # A chat, its messages with an attachment each may have, and users who own files.
  def create_tables
    ActiveRecord::Schema.define do
      create_table(:chats) do |t|
        t.string :model_id, :title
        t.timestamps
      end
      create_table(:messages) do |t|
        t.references :chat
        t.text :content
        t.timestamps
      end
      create_table(:users) { |t| t.string :name }
      create_table(:teams) { |t| t.string :name }
    end
  end

  def define
    return if defined?(::Chat)

    Object.const_set(:Chat, Class.new(ActiveRecord::Base) { has_many :messages, dependent: :destroy })
    Object.const_set(:Message, Class.new(ActiveRecord::Base) do
      belongs_to :chat
      has_one_attached :attachment
    end)
    Object.const_set(:User, Class.new(ActiveRecord::Base))
    Object.const_set(:Team, Class.new(ActiveRecord::Base))
  end
end

RSpec.configure do |config|
  config.before(:context, :rails) { RailsModels.define if ActiveStorageDB.available? }
end
