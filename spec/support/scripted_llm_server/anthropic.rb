# frozen_string_literal: true

require 'json'

class ScriptedLLMServer
  # Renders a scripted Reply as Anthropic's Messages API answers it, with the
  # usage its prompt cache would report.
  module AnthropicRendering
    private

    def anthropic_message(reply, usage, output_tokens)
      content = if reply.kind == :tool_calls
                  reply.calls.map { |name, input| { type: 'tool_use', id: "toolu_#{next_id(:call)}", name:, input: } }
                else
                  [{ type: 'text', text: reply.text }]
                end
      {
        id: "msg_#{next_id}", type: 'message', role: 'assistant', model: ANTHROPIC_MODEL, content:,
        stop_reason: reply.kind == :tool_calls ? 'tool_use' : 'end_turn', stop_sequence: nil,
        usage: usage.merge(output_tokens:)
      }
    end
  end
end
