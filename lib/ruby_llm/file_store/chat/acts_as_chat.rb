# frozen_string_literal: true

module RubyLLM
  class FileStore # :nodoc:
    # Files for ruby_llm's Rails chats: a record declared with +acts_as_chat+ gets
    # with_file_store, file_store and after_file_write, which act on the RubyLLM::Chat
    # the record builds (to_llm), and <tt>has_many :ruby_llm_chat_files</tt>. The class
    # may declare its records' store once, so that a record loaded anywhere (a job's
    # <tt>Chat.find</tt>, a console, a controller) has it:
    #
    #   class Chat < ApplicationRecord
    #     acts_as_chat
    #     file_store owner: -> { user }, spill_to_file: 20_000
    #   end
    #
    #   Chat.find(id).ask "Summarise the contract", with: "contract.pdf"
    #   chat.with_file_store(owner: Current.user) # or per record, which wins
    #   chat.ruby_llm_chat_files                  # the rows
    #
    # ruby_llm loads acts_as_chat when Active Record loads (its railtie), so the
    # gem's Railtie (railtie.rb) installs this after it; outside Rails, call
    # ActsAsChat.install once ruby_llm's ActsAs is included in ActiveRecord::Base.
    module ActsAsChat
      NOT_GIVEN = Object.new.freeze
      REMOVED = Object.new.freeze
      private_constant :NOT_GIVEN, :REMOVED

      # The class macro of acts_as_chat classes.
      module ClassMethods
        # Declares the store of every record of the class, with what with_file_store
        # takes: without a store, the record's own Active Storage store, for +owner+
        # when given; or a store. A lambda (for the store or the owner) runs once per
        # record, on the record: <tt>-> { user }</tt>, or <tt>->(chat) { chat.user }</tt>.
        # nil removes a parent class's declaration. Subclasses inherit it; a record's
        # own with_file_store replaces it for that record. Returns the declaration.
        #
        #   file_store                                  # the chat's files, shared by everyone in it
        #   file_store owner: -> { user }, spill_to_file: 20_000
        #   file_store -> { RubyLLM.file_store.directory("tmp/chats/#{id}") }
        #   file_store extra_tools: [:glob_files]
        def file_store(store = NOT_GIVEN, spill_to_file: NOT_GIVEN, owner: nil, extra_tools: NOT_GIVEN)
          given = { store:, spill_to_file:, owner:, extra_tools: }
                  .reject { |_, value| value.equal?(NOT_GIVEN) || value.nil? }
          declared_once!(given)
          @file_store_declaration = store.nil? ? REMOVED : given.freeze
          file_store_declaration
        end

        # The class's declaration, what was given to file_store (<tt>{ owner:,
        # spill_to_file: 20_000 }</tt>), or nil.
        def file_store_declaration
          declaring = ancestors.find { |ancestor| ancestor.instance_variable_defined?(:@file_store_declaration) }
          declaration = declaring&.instance_variable_get(:@file_store_declaration)
          declaration unless declaration.equal?(REMOVED)
        end

        private

        # Raises ArgumentError when this class has declared its store already: a
        # second declaration would silently undo the first's owner.
        def declared_once!(given)
          return unless instance_variable_defined?(:@file_store_declaration)

          raise ArgumentError, "#{name || inspect} declares file_store twice (#{described(@file_store_declaration)}, " \
                               "then #{described(given)}): declare it once; a subclass may declare its own"
        end

        def described(declaration)
          return 'nil' if declaration.equal?(REMOVED)

          declaration.empty? ? 'with nothing' : "with #{declaration.keys.join(', ')}"
        end
      end

      # The instance methods of acts_as_chat records.
      module RecordMethods
        # Attaches a store to the record's chat and returns the record. Without a
        # store, the chat's own Active Storage store, for +owner+ when given. A store
        # (or nil, which removes it) passes through to RubyLLM::Chat#with_file_store;
        # +owner+ then raises, since it is the store that has an owner. The store stays
        # attached if the record builds its RubyLLM::Chat again, and replaces the one
        # the class declares.
        def with_file_store(store = NOT_GIVEN, owner: nil, **options)
          if store.equal?(NOT_GIVEN)
            store = RubyLLM.file_store.active_storage(self, owner:)
          elsif owner
            raise ArgumentError, 'with_file_store takes owner: only without a store; build the store with ' \
                                 'RubyLLM.file_store.active_storage(chat, owner:) to pass both'
          end
          attach_file_store([store, options])
          self
        end

        # The store attached to the record's chat: the one given to with_file_store,
        # or else the one the class declares; nil without either.
        #
        #   Chat.find(id).file_store # => #<RubyLLM::ActiveRecord::FileStore Chat 7 owner: User 3>
        def file_store
          declared_file_store unless @ruby_llm_file_store
          @ruby_llm_file_store&.first
        end

        # See RubyLLM::Chat#after_file_write. Returns the record.
        def after_file_write(&block)
          to_llm.after_file_write(&block)
          self
        end

        # See RubyLLM::Chat#with_code_execution. Returns the record.
        def with_code_execution(**options)
          to_llm.with_code_execution(**options)
          self
        end

        # The record's RubyLLM::Chat, with the attached store on it even when the
        # record has built a new one since with_file_store.
        def to_llm
          chat = super
          declared_file_store unless @ruby_llm_file_store
          apply_file_store(chat)
        end

        private

        # Attaches +setting+ ([store, options]) and keeps the store the chat made of
        # it, so a folder's path becomes its Directory store once.
        def attach_file_store(setting)
          @ruby_llm_file_store = setting
          @ruby_llm_file_store_chat = nil
          chat = to_llm
          @ruby_llm_file_store = [chat.file_store, setting.last]
        end

        # The class's declaration, applied once to a saved record (an unsaved one has
        # no row for its files yet, so it gets the store once saved).
        def declared_file_store
          declaration = self.class.file_store_declaration
          return if declaration.nil? || !persisted? || @ruby_llm_file_store_declaring

          @ruby_llm_file_store_declaring = true
          begin
            attach_file_store(ActsAsChat.setting_from(self, declaration))
          ensure
            @ruby_llm_file_store_declaring = false
          end
        end

        def apply_file_store(chat)
          return chat unless @ruby_llm_file_store && !chat.equal?(@ruby_llm_file_store_chat)

          store, options = @ruby_llm_file_store
          chat.with_file_store(store, **options)
          @ruby_llm_file_store_chat = chat
          chat
        end
      end

      # acts_as_chat, which also adds the files' association and RecordMethods.
      module Macro
        def acts_as_chat(...)
          result = super
          ActsAsChat.extend_chat_class(self)
          result
        end

        def acts_as_message(...)
          result = super
          MessageAttachments.install(self)
          result
        end
      end

      module_function

      # Hooks into acts_as_chat, once ruby_llm's ActsAs is loaded. Returns whether it did.
      def install
        return false unless defined?(::ActiveRecord::Base) &&
                            (defined?(RubyLLM::ActiveRecord::ActsAs) || defined?(RubyLLM::ActiveRecord::ActsAsLegacy))

        base = ::ActiveRecord::Base.singleton_class
        base.prepend(Macro) unless base.include?(Macro)
        true
      end

      # Gives +klass+, an acts_as_chat class, the record methods, the file_store macro
      # and, when Active Storage is loaded, <tt>has_many :ruby_llm_chat_files</tt>.
      def extend_chat_class(klass)
        klass.prepend(RecordMethods) unless klass.include?(RecordMethods)
        klass.extend(ClassMethods) unless klass.singleton_class.include?(ClassMethods)
        klass.include(RubyLLM::ActiveRecord::ChatFiles) if FileStore.active_storage_missing.nil?
      end

      # [store, options] for +record+ from a class's +declaration+, its lambdas run on
      # the record.
      def setting_from(record, declaration)
        store = declaration.key?(:store) ? evaluate(record, declaration[:store]) : owners_store(record, declaration)
        [store, declaration.slice(:spill_to_file, :extra_tools)]
      end

      # The record's Active Storage store, for the declared owner: one that writes
      # nothing when the declaration names an owner and it is nil (RailsStore::Ownerless).
      def owners_store(record, declaration)
        owner = evaluate(record, declaration[:owner])
        return RubyLLM.file_store.active_storage(record, owner:) unless owner.nil? && declaration.key?(:owner)

        FileStore.require_active_storage!('file_store owner:')
        RailsStore::Ownerless.new(record)
      end

      def evaluate(record, value)
        return value unless value.is_a?(Proc)

        value.arity.zero? ? record.instance_exec(&value) : record.instance_exec(record, &value)
      end
    end
  end
end

RubyLLM::FileStore::ActsAsChat.install
