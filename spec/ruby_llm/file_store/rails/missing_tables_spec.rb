# frozen_string_literal: true

# An application that has not run Active Storage's install is told the command,
# rather than getting the database's "Could not find table" at the first write.
RSpec.describe 'RubyLLM.file_store.active_storage before the tables exist', :rails do
  let(:chat) { Chat.create!(model_id: 'gpt-4.1-mini') }

  def forget_tables
    RubyLLM::ActiveRecord::ChatFile.instance_variable_set(:@table_ready, nil)
    ActiveRecord::Base.connection.schema_cache.clear!
  end

  def without(*tables)
    connection = ActiveRecord::Base.connection
    tables.each { |table| connection.rename_table(table, "#{table}_waiting") }
    forget_tables
    yield
  ensure
    tables.each { |table| connection.rename_table("#{table}_waiting", table) }
    forget_tables
  end

  it "names bin/rails active_storage:install when Active Storage's tables are missing" do
    without(:active_storage_attachments, :active_storage_blobs) do
      expect { RubyLLM.file_store.active_storage(chat) }.to raise_error(
        RubyLLM::ConfigurationError,
        "Active Storage's tables active_storage_blobs and active_storage_attachments do not exist yet: run " \
        'bin/rails active_storage:install, then bin/rails db:migrate'
      )
    end
  end

  it 'names the generator when only the table of chat files is missing, and works once they are there' do
    without(:ruby_llm_chat_files) do
      expect { RubyLLM.file_store.active_storage(chat) }.to raise_error(
        RubyLLM::ConfigurationError, %r{\AThe table ruby_llm_chat_files does not exist yet: run bin/rails generate}
      )
    end
    expect(RubyLLM.file_store.active_storage(chat).write('a.md', 'kept').byte_size).to eq(4)
  end
end
