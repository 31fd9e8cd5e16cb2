# frozen_string_literal: true

module RubyLLM
  class FileStore
    module Converters # :nodoc:
      # Each content type's rules (type_rules), kept for the process.
      TYPE_RULES = {} # rubocop:disable Style/MutableConstant
      TYPES_KEPT = 1024

      module_function

      # What the core's rules say of files of +type+, in one answer: the registry
      # keys that read it, in the order tried (+:converter_keys+), and whether it
      # holds text (+:text+: +:text+, +:unknown+ or false; see
      # Text.readable_type?). The rules never change: each type's answer is kept,
      # frozen, for the process (TYPES_KEPT types at most), so a tool call asks the
      # core nothing for a type seen before.
      def type_rules(type)
        type = type.to_s
        TYPE_RULES[type] || keep_type_rules(type, Native.type_rules(type))
      end

      def keep_type_rules(type, rules)
        rules[:converter_keys].each(&:freeze).freeze
        TYPE_RULES.clear if TYPE_RULES.size >= TYPES_KEPT
        TYPE_RULES[type.frozen? ? type : type.dup.freeze] = rules.freeze
      end
    end
  end
end
