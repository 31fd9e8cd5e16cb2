# frozen_string_literal: true

module RubyLLM
  class FileStore # :nodoc:
    # Files for ruby_llm's Rails chats: a record declared with +acts_as_chat+ gets
    # with_file_store, file_store and after_file_write, which act on the RubyLLM::Chat
    # the record builds (to_llm), and <tt>has_many :ruby_llm_chat_files</tt>.
    #
    #   class Chat < ApplicationRecord
    #     acts_as_chat
    #   end
    #
    #   chat.with_file_store                      # the chat's files in Active Storage
    #   chat.with_file_store(owner: Current.user) # that person's files and the shared ones
    #   chat.ask "Summarise the contract", with: "contract.pdf"
    #   chat.ruby_llm_chat_files                  # the rows
    #
    # ruby_llm loads acts_as_chat when Active Record loads (its railtie), so the
    # Railtie below installs this after it; outside Rails, call ActsAsChat.install once
    # ruby_llm's ActsAs is included in ActiveRecord::Base.
    module ActsAsChat
      # The instance methods of acts_as_chat records.
      module RecordMethods
        NOT_GIVEN = Object.new.freeze
        private_constant :NOT_GIVEN

        # Attaches a store to the record's chat and returns the record. Without a
        # store, the chat's own Active Storage store, for +owner+ when given. A store
        # (or nil, which removes it) passes through to RubyLLM::Chat#with_file_store;
        # +owner+ then raises, since it is the store that has an owner. The store stays
        # attached if the record builds its RubyLLM::Chat again.
        def with_file_store(store = NOT_GIVEN, owner: nil, **options)
          if store.equal?(NOT_GIVEN)
            store = RubyLLM.file_store.active_storage(self, owner:)
          elsif owner
            raise ArgumentError, 'with_file_store takes owner: only without a store; build the store with ' \
                                 'RubyLLM.file_store.active_storage(chat, owner:) to pass both'
          end
          @ruby_llm_file_store = [store, options]
          @ruby_llm_file_store_chat = nil
          to_llm
          self
        end

        # The store attached to the record's chat, or nil.
        def file_store
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
          apply_file_store(super)
        end

        private

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

      # Gives +klass+, an acts_as_chat class, the record methods and, when Active
      # Storage is loaded, <tt>has_many :ruby_llm_chat_files</tt>.
      def extend_chat_class(klass)
        klass.prepend(RecordMethods) unless klass.include?(RecordMethods)
        klass.include(RubyLLM::ActiveRecord::ChatFiles) if FileStore.active_storage_missing.nil?
      end
    end

    if defined?(::Rails::Railtie)
      # Installs ActsAsChat after ruby_llm's own Active Record initializer.
      class Railtie < ::Rails::Railtie
        initializer 'ruby_llm_file_store.acts_as_chat', after: 'ruby_llm.active_record' do
          ActiveSupport.on_load(:active_record) { RubyLLM::FileStore::ActsAsChat.install }
        end
      end
    end
  end
end

RubyLLM::FileStore::ActsAsChat.install
