# frozen_string_literal: true

module RubyLLM
  class FileStore
    # The messages as one request sends them: attachments of the latest question in
    # full (none with attachments: :lines), every earlier attachment and every file
    # a tool returned as one line, and the results of read_file (declared
    # <tt>shown: :until_next_question</tt>) in full only until the next question.
    # The chat's own messages are never changed; this builds copies.
    #
    # What it sends for a message depends only on the message and on whether a
    # question came after it, so a request starts with the whole previous request
    # except where a question turns the messages before it into lines. With a
    # +cache_control+, the last message that stays the same in the next request
    # is marked as the prompt cache's breakpoint: the attachments of the latest
    # question and the reads since are after it, so they are not written to the
    # cache at a premium only to be replaced by their lines.
    class MessageView # :nodoc:
      MODES = %i[full lines].freeze
      # Anthropic takes at most four breakpoints a request.
      BREAKPOINTS = 4

      def initialize(keeper:, chat:, attachments: :full, cache_control: nil)
        @keeper = keeper
        @chat = chat
        @full = attachments == :full
        @cache_control = cache_control
      end

      def call(messages)
        latest = messages.rindex { |message| message.role == :user }
        calls = tool_calls_by_id(messages)
        @changing = []
        view = messages.each_with_index.map do |message, index|
          case message.role
          when :user then user_view(message, index, current: index == latest)
          when :tool then tool_view(message, index, calls[message.tool_call_id], answered: latest && index < latest)
          else message
          end
        end
        @cache_control ? mark_breakpoint(view) : view
      end

      # The line the model sees in place of +file+.
      def self.line(file)
        "#{file.path} (#{file.content_type}, #{file.human_size}) is in this chat's files"
      end

      private

      def user_view(message, index, current:)
        return message if Seams.attachments(message).empty? || !Seams.text_content?(message)

        full, lines = split(Seams.attachments(message)) { |attachment| in_full?(attachment, current) }
        # Sent in full now, a line from the next question on.
        @changing << index if lines.size < Seams.attachments(message).size - unkept(message)
        lines.empty? ? message : rebuild(message, [text(message), *lines], full)
      end

      # Whether the store's copy of +attachment+ goes in full: only the latest
      # question's, unless attachments: :lines, and only what the provider takes.
      def in_full?(attachment, current)
        current && @full && @chat.provider_takes?(attachment)
      end

      def tool_view(message, index, call, answered:)
        return message unless Seams.text_content?(message)

        if Tools.shown_until_next_question?(call&.name)
          return forget_read(message, call) if answered

          @changing << index
          return message
        end
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

      # How many of +message+'s attachments the store cannot keep (sent as they are, always).
      def unkept(message)
        Seams.attachments(message).count { |attachment| @keeper.keep(attachment).nil? }
      end

      # The view with its last message that the next request sends unchanged marked
      # as a cache breakpoint, unless the chat's own marks leave no room.
      def mark_breakpoint(view)
        stable = (@changing.min || view.size) - 1
        return view if stable.negative? || view.count { |message| Seams.cache_marked?(message) } >= BREAKPOINTS
        return view if Seams.cache_marked?(view[stable])

        view.dup.tap { |marked| marked[stable] = Seams.mark_cache(view[stable], @cache_control) }
      end

      def forget_read(message, call)
        arguments = (call.arguments || {}).transform_keys(&:to_s)
        rebuild(message, ["[#{call.name} showed #{arguments['path']}#{range(arguments)}. It is no longer shown; " \
                          "read it again with #{call.name} when you need it.]"], [])
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
