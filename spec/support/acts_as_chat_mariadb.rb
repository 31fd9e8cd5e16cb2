# frozen_string_literal: true

module ActsAsChatDB
  # MariaDB keeps a JSON column as LONGTEXT checked by json_valid, which Active Record
  # 6.1 reads as text, so a Hash would be saved as Ruby's inspect of it and fail the
  # check; an application on MariaDB declares the attributes JSON, as here (ruby_llm
  # main's tables, under bin/test-databases).
  module MariaDB
    JSON_COLUMNS = { 'RubyLLM::ActiveRecord::Model' => %i[modalities capabilities pricing metadata],
                     'RubyLLM::ActiveRecord::ToolCall' => %i[arguments],
                     'ConversationMessage' => %i[citations server_tool_calls raw_content raw_reasoning] }.freeze

    module_function

    def declare_json
      return unless ActiveRecord::Base.connection.adapter_name.match?(/mysql/i)

      JSON_COLUMNS.each do |name, columns|
        columns.each { |column| Object.const_get(name).attribute(column, :json) }
      end
    end
  end
end
