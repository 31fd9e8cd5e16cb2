# frozen_string_literal: true

module RubyLLM
  class FileStore
    # The glue for ruby_llm main, where a request's messages pass through
    # Chat#preprocessed_messages, a message has its own attachments, and a tool may
    # return files (Tool.split_result).
    module Seams
      module_function

      def check!; end

      def declare_parameter(tool_class, name, **options)
        tool_class.parameter(name, **options)
      end

      # What a tool returns to show the model +attachment+ with +text+.
      def file_result(text, attachment, code: false) # rubocop:disable Lint/UnusedMethodArgument
        [text, attachment]
      end

      # Whether the store can keep +attachment+: not a URL, nor a file uploaded to the provider.
      def keepable?(attachment)
        !attachment.url? && !attachment.provider_file?
      end

      # The bytes of +attachment+ as its source holds them. Attachment#content makes a
      # text type's bytes valid UTF-8, replacing what is not (a Latin-1 page): where
      # it may have, they are read from the source again, as the attachment reads it.
      def bytes(attachment)
        content = attachment.content.to_s
        return content unless attachment.text? && content.include?("\uFFFD")

        attachment.send(:load_content).to_s
      end

      def attachments(message)
        message.attachments
      end

      def text_content?(message)
        message.content.nil? || message.content.is_a?(String)
      end

      # A copy of +message+ with +content+, a String, and +attachments+.
      def rebuild(message, content, attachments)
        message.with_attachments(attachments).tap { |copy| copy.instance_variable_set(:@content, content) }
      end

      def cache_marked?(message)
        message.cache_until_here?
      end

      # A copy of +message+ marked as a prompt cache breakpoint (with_caching's
      # options say how long the provider keeps it).
      def mark_cache(message, _control)
        message.dup.tap(&:cache_until_here!)
      end

      # Chat's side: the request's view of the messages, and tool results spilled.
      module Chat
        private

        def preprocessed_messages(list = messages)
          return super unless file_store

          view = file_store_view(list)
          # Nothing the next request sends the same: with no breakpoint, with_caching
          # would cache the whole request on Anthropic (its automatic breakpoint at
          # the end) and pay the write premium for what the next request replaces.
          # provider_completion reads @caching after this, and puts it back.
          @caching = nil if @file_store_completing && file_store_cache_control && view.none?(&:cache_until_here?)
          super(view)
        end

        def provider_completion(...)
          @file_store_completing = true
          caching = @caching
          super
        ensure
          @file_store_completing = false
          @caching = caching
        end

        # What with_caching asks of the provider, when the store places the
        # breakpoints: on Anthropic, where only marked prefixes are cached.
        def file_store_cache_control
          @caching if @caching && @provider.is_a?(RubyLLM::Providers::Anthropic)
        end

        def add_tool_result_message(tool_call, result)
          return super unless file_store

          content, attachments = RubyLLM::Tool.split_result(result)
          shown = file_store_spill(tool_call, content)
          return super if shown.equal?(content)

          super(tool_call, attachments.empty? ? shown : [shown, *attachments])
        end

        def file_store_renders?(attachment)
          protocol = @provider.send(:resolve_protocol, @protocol, @model, tools: {}, schema: nil, thinking: nil,
                                                                          tool_prefs: nil, citations: false)
          protocol.new(@provider, @model).send(:format_content, nil, [attachment])
        end
      end
    end
  end
end
