# frozen_string_literal: true

module RubyLLM
  class FileStore # :nodoc:
    module RailsStore
      # The store of a chat whose declared owner is missing (<tt>file_store owner:
      # -> { user }</tt> gave nil: a chat without a user yet, a deleted user). It
      # sees the chat's shared files, as a store without an owner does, and writes
      # nothing: a file meant for one person must not become everyone's. Each write
      # raises OwnerMissingError naming the chat; the tools tell the model, and an
      # attachment is sent as the message has it.
      class Ownerless < RubyLLM::ActiveRecord::FileStore
        def initialize(chat, max_file_size: nil)
          super(chat, owner: nil, max_file_size:)
          @refusal = "#{chat.class.name} #{chat.id} has no owner for its files (its file_store owner: gave nil), " \
                     'so nothing is written, not even as a shared file: give the chat its owner first, or ' \
                     'declare file_store without owner: for files everyone in the chat shares'
        end

        # Why the store writes nothing.
        def write_refusal = @refusal

        def write(*, **)
          raise OwnerMissingError, @refusal
        end

        def delete(*)
          raise OwnerMissingError, @refusal
        end

        def attachment_content(*) = nil

        def inspect # :nodoc:
          "#<#{self.class.name} #{chat.class.name} #{chat.id} owner missing>"
        end
      end
    end
  end
end
