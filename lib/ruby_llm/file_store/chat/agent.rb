# frozen_string_literal: true

module RubyLLM
  class FileStore
    # The <tt>file_store</tt> macro of RubyLLM::Agent: each chat the agent builds
    # gets a store, with what with_file_store takes, or one a lambda picks per chat
    # with +chat+ and the agent's inputs in scope.
    #
    #   class ResearchAgent < RubyLLM::Agent
    #     file_store spill_to_file: 20_000
    #   end
    #
    #   class ProjectAgent < RubyLLM::Agent
    #     inputs :project
    #     file_store -> { RubyLLM.file_store.directory(project.files_path) }
    #   end
    module AgentExtension
      NOT_GIVEN = Object.new.freeze
      REMOVED = Object.new.freeze
      private_constant :NOT_GIVEN, :REMOVED

      # Declares the store of each chat; nil removes a parent agent's. +owner:+, a
      # value or a lambda, is passed on for stores that keep files per person;
      # +attachments:+ (:full or :lines) and +extra_tools:+ as with_file_store takes
      # them. Without arguments, returns the declaration.
      def file_store(store = NOT_GIVEN, spill_to_file: NOT_GIVEN, owner: nil, attachments: NOT_GIVEN,
                     extra_tools: NOT_GIVEN)
        Seams.check!
        options = { spill_to_file:, attachments:, extra_tools: }
        if store.equal?(NOT_GIVEN) && options.values.all? { |given| given.equal?(NOT_GIVEN) } && owner.nil?
          declaration = file_store_declaration
          return declaration.equal?(REMOVED) ? nil : declaration
        end

        @file_store_declaration = store.nil? ? REMOVED : { store:, owner:, **options }
      end

      def apply_configuration(chat, input_values:, persist_instructions:) # :nodoc:
        result = super
        apply_file_store(chat, input_values)
        result
      end

      private

      def file_store_declaration
        declaring = ancestors.find { |ancestor| ancestor.instance_variable_defined?(:@file_store_declaration) }
        declaring&.instance_variable_get(:@file_store_declaration)
      end

      def apply_file_store(chat, input_values)
        declaration = file_store_declaration
        return if declaration.nil? || declaration.equal?(REMOVED)

        runtime = runtime_context(chat:, inputs: input_values)
        arguments = []
        arguments << evaluate(declaration[:store], runtime) unless declaration[:store].equal?(NOT_GIVEN)
        options = declared_options(declaration)
        owner = evaluate(declaration[:owner], runtime) if declaration[:owner]
        # An owner that is missing is not "shared": a record's store then writes nothing.
        return chat.with_file_store(RailsStore::Ownerless.new(chat), **options) if ownerless?(declaration, owner, chat)

        options[:owner] = owner if owner
        chat.with_file_store(*arguments, **options)
      end

      def declared_options(declaration)
        %i[spill_to_file attachments extra_tools].each_with_object({}) do |option, options|
          options[option] = declaration[option] unless declaration.fetch(option, NOT_GIVEN).equal?(NOT_GIVEN)
        end
      end

      def ownerless?(declaration, owner, chat)
        declaration[:owner] && owner.nil? && declaration[:store].equal?(NOT_GIVEN) &&
          defined?(::ActiveRecord::Base) && chat.is_a?(::ActiveRecord::Base)
      end
    end
  end
end

if defined?(RubyLLM::Agent)
  # The hook keeps the visibility ruby_llm gives apply_configuration.
  if RubyLLM::Agent.singleton_class.private_method_defined?(:apply_configuration)
    RubyLLM::FileStore::AgentExtension.send(:private, :apply_configuration)
  end
  RubyLLM::Agent.singleton_class.prepend(RubyLLM::FileStore::AgentExtension)
end
