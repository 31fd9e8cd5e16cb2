# frozen_string_literal: true

module RubyLLM
  class FileStore
    # The attachments of an acts_as_message record, as its RubyLLM::Message has them.
    # ruby_llm downloads each into a tempfile whenever it builds the chat's messages
    # (each ask), though a chat with files sends every earlier attachment as its one
    # line: a 25 MB PDF on S3 was 25 MB a question. Here each is its Active Storage
    # blob, which ruby_llm's Attachment downloads only when its content is asked for
    # (the question it came with), and by which the chat's store recognises an
    # attachment it keeps already (AttachmentKeeper, RailsStore::KeptBlobs).
    module MessageAttachments
      # The hook ruby_llm's message methods download through, on every generation
      # this gem serves (acts_as_message's download_attachment).
      HOOK = :download_attachment

      # Prepends itself to +klass+, an acts_as_message class, where ruby_llm has the hook.
      def self.install(klass)
        return unless klass.private_method_defined?(HOOK) || klass.method_defined?(HOOK)

        klass.prepend(self) unless klass.include?(self)
      end

      private

      def download_attachment(attachment)
        attachment.respond_to?(:blob) && attachment.blob ? attachment.blob : super
      end
    end
  end
end
