# frozen_string_literal: true

require 'json'

module RubyLLM
  class FileStore
    # The glue for ruby_llm 1.16, where Chat#provider_completion hands +messages+ to
    # the provider, a message's attachments live in its RubyLLM::Content, and a tool
    # returns text only.
    module Seams
      module_function

      def check!; end

      def declare_parameter(tool_class, name, **options)
        tool_class.param(name, **options)
      end

      # Tools cannot send files to the model on this ruby_llm, so the model is told
      # so instead of being told a file is attached; pointed at run_code only when
      # the chat has it.
      def file_result(text, _attachment, code: false)
        "#{text.delete_suffix(' is attached as the file itself.')} can only be read as the file itself, " \
          "and this chat cannot show files from tools#{code ? ': read it with run_code' : ''}."
      end

      # The bytes of +attachment+ as its source holds them: its content.
      def bytes(attachment)
        attachment.content.to_s
      end

      # Whether the store can keep +attachment+: not a URL.
      def keepable?(attachment)
        !attachment.url?
      end

      # A result as text to spill: a String, or a Hash or Array as JSON; nil for
      # anything else (ruby_llm's Content), which goes to the model as it is.
      def result_text(result)
        case result
        when String then result
        when Hash, Array then JSON.generate(result)
        end
      end

      def attachments(message)
        message.content.is_a?(RubyLLM::Content) ? message.content.attachments : []
      end

      def text_content?(message)
        content = message.content
        content.nil? || content.is_a?(String) || (content.is_a?(RubyLLM::Content) && content.text.is_a?(String))
      end

      # A copy of +message+ with +content+, a String, and +attachments+.
      def rebuild(message, content, attachments)
        message.dup.tap do |copy|
          copy.content = attachments.empty? ? content : RubyLLM::Content.new(content, attachments)
        end
      end

      def cache_marked?(message)
        content = message.content
        content.is_a?(RubyLLM::Content::Raw) &&
          Array(content.value).any? { |block| block.is_a?(Hash) && (block[:cache_control] || block['cache_control']) }
      end

      # A copy of +message+ whose last Anthropic content block carries +control+:
      # the message as Anthropic's own formatter renders it, as raw content.
      def mark_cache(message, control)
        blocks = anthropic_blocks(message).map(&:dup)
        return message if blocks.empty? || !blocks.last.is_a?(Hash)

        blocks[-1] = blocks.last.merge(cache_control: control)
        message.dup.tap { |copy| copy.content = RubyLLM::Content::Raw.new(blocks) }
      end

      def anthropic_blocks(message)
        anthropic = RubyLLM::Providers::Anthropic
        return anthropic::Tools.format_tool_call(message)[:content] if message.tool_call?
        return [anthropic::Tools.format_tool_result_block(message)] if message.tool_result?

        Array(anthropic::Media.format_content(message.content))
      end

      # Chat's side: provider_completion reads +messages+ once, for the request,
      # and gets the view; a tool's result is spilled before it becomes a message.
      module Chat
        def messages
          return super unless @file_store_request

          @file_store_request = false
          file_store_view(super)
        end

        private

        # With Anthropic's cache asked for the whole request
        # (<tt>with_params(cache_control: { type: "ephemeral" })</tt>), the view
        # places the breakpoint instead, and the request leaves the top-level one out.
        def provider_completion(...)
          @file_store_request = !file_store.nil?
          params = @params
          @file_store_cache = anthropic_cache_control
          @params = params.reject { |key, _| key.to_s == 'cache_control' } if @file_store_cache
          super
        ensure
          @file_store_request = false
          @file_store_cache = nil
          @params = params
        end

        # The cache_control the view marks its breakpoint with, during a request.
        def file_store_cache_control
          @file_store_cache
        end

        def anthropic_cache_control
          return unless file_store && @provider.is_a?(RubyLLM::Providers::Anthropic)

          @params[:cache_control] || @params['cache_control']
        end

        def add_tool_result_message(tool_call, result)
          return super unless file_store

          content = Seams.result_text(result.is_a?(RubyLLM::Tool::Halt) ? result.content : result)
          return super unless content

          shown = file_store_spill(tool_call, content)
          shown.equal?(content) ? super : super(tool_call, shown)
        end

        def file_store_renders?(attachment)
          @provider.send(:format_content, RubyLLM::Content.new(nil, [attachment]))
        end
      end
    end
  end
end
