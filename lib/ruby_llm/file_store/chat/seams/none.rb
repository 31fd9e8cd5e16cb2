# frozen_string_literal: true

module RubyLLM
  class FileStore
    # On a ruby_llm without the seams chats with files need, the stores, converters
    # and tools still work; with_file_store and the agent macro say which versions do.
    module Seams
      module_function

      def check!
        # What the nearest generation has and this ruby_llm lacks.
        missing = SEAMS.values.map { |hooks| hooks.reject { |_, present| present.call }.keys }.min_by(&:size)
        raise ConfigurationError, "Chats with files need #{CHAT_VERSIONS}: ruby_llm #{RubyLLM::VERSION} has no " \
                                  "#{missing.join(', ')}. The stores, converters and tools work on their own."
      end

      def declare_parameter(tool_class, name, **options)
        tool_class.respond_to?(:parameter) ? tool_class.parameter(name, **options) : tool_class.param(name, **options)
      end

      def file_result(text, _attachment, code: false) = text # rubocop:disable Lint/UnusedMethodArgument

      # Nothing to hook: with_file_store refuses first.
      module Chat
      end
    end
  end
end
