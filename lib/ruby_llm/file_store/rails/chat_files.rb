# frozen_string_literal: true

require_relative '../interrupts'

module RubyLLM
  module ActiveRecord
    # The association a chat's class gets for its files:
    #
    #   class Chat < ApplicationRecord
    #     include RubyLLM::ActiveRecord::ChatFiles
    #   end
    #
    #   chat.ruby_llm_chat_files.shared.with_attached_file # the rows, for views
    #   chat.destroy                                       # destroys them too
    #
    # Until the table's migration has run, a chat is destroyed as it was without the
    # gem: there are no files to destroy.
    #
    # A store adds it to its chat's class when the class lacks it, so any record can be
    # a chat; declare it in the model so that a chat destroyed before any store was
    # built in the process takes its files with it too. acts_as_chat declares it.
    module ChatFiles
      MUTEX = Mutex.new
      private_constant :MUTEX

      def self.included(base)
        add_to(base)
      end

      # Declares <tt>has_many :ruby_llm_chat_files</tt> on +klass+ unless it has it.
      def self.add_to(klass)
        RubyLLM::FileStore::Interrupts.guarded(MUTEX) do
          next if klass.reflect_on_association(:ruby_llm_chat_files)

          # The files; the row a store keeps its ranked search's index in is left out.
          klass.has_many :ruby_llm_chat_files, -> { where.not(path: RubyLLM::FileStore::Passages::SAVED_PATH) },
                         as: :chat, class_name: 'RubyLLM::ActiveRecord::ChatFile', inverse_of: :chat
          klass.before_destroy(:destroy_ruby_llm_chat_files)
          klass.include(Destroying)
        end
      end

      # What <tt>dependent: :destroy</tt> would do, once the table exists.
      module Destroying
        private

        # Every row of the chat's, the saved index's too.
        def destroy_ruby_llm_chat_files
          rows = RubyLLM::ActiveRecord::ChatFile
          rows.where(chat_type: self.class.polymorphic_name, chat_id: id).destroy_all if rows.table_ready?
        end
      end
    end
  end
end
