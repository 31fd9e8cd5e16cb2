# frozen_string_literal: true

module RubyLLM
  class FileStore
    # The messages as one request sends them: attachments of the latest question in
    # full, every earlier attachment and every file a tool returned as one line,
    # and read_file results in full only until the next question. The chat's own
    # messages are never changed; this builds copies.
    class MessageView # :nodoc:
      def initialize(keeper:, chat:)
        @keeper = keeper
        @chat = chat
      end

      def call(messages)
        latest = messages.rindex { |message| message.role == :user }
        calls = tool_calls_by_id(messages)
        messages.each_with_index.map do |message, index|
          case message.role
          when :user then user_view(message, current: index == latest)
          when :tool then tool_view(message, calls[message.tool_call_id], answered: latest && index < latest)
          else message
          end
        end
      end

      # The line the model sees in place of +file+.
      def self.line(file)
        "#{file.path} (#{file.content_type}, #{file.human_size}) is in this chat's files"
      end

      private

      def user_view(message, current:)
        return message if Seams.attachments(message).empty? || !Seams.text_content?(message)

        full, lines = split(Seams.attachments(message)) { |attachment| current && @chat.provider_takes?(attachment) }
        lines.empty? ? message : rebuild(message, [text(message), *lines], full)
      end

      def tool_view(message, call, answered:)
        return message unless Seams.text_content?(message)
        return answered ? forget_read(message, call) : message if call&.name.to_s == 'read_file'
        return message if Seams.attachments(message).empty?

        full, lines = split(Seams.attachments(message)) { false }
        rebuild(message, [text(message), *lines], full)
      end

      # [the attachments sent in full, the lines for the rest]. An attachment the
      # store cannot keep is always sent; the block says which others are.
      def split(attachments)
        full = []
        lines = []
        attachments.each do |attachment|
          file = @keeper.keep(attachment)
          file.nil? || yield(attachment) ? full << attachment : lines << self.class.line(file)
        end
        [full, lines]
      end

      def forget_read(message, call)
        arguments = (call.arguments || {}).transform_keys(&:to_s)
        rebuild(message, ["[read_file showed #{arguments['path']}#{range(arguments)}. It is no longer shown; " \
                          'read it again with read_file when you need it.]'], [])
      end

      def range(arguments)
        return '' unless arguments['offset'] || arguments['limit']

        limit = ", at most #{arguments['limit']}" if arguments['limit']
        " (#{arguments['unit'] || 'lines'} from #{arguments['offset'] || 'the start'}#{limit})"
      end

      def text(message)
        message.content.is_a?(String) ? message.content : message.content&.text
      end

      def rebuild(message, parts, attachments)
        Seams.rebuild(message, parts.compact.reject { |part| part.to_s.empty? }.join("\n\n"), attachments)
      end

      def tool_calls_by_id(messages)
        messages.each_with_object({}) do |message, calls|
          (message.tool_calls || {}).each_value { |call| calls[call.id] = call }
        end
      end
    end
  end
end
