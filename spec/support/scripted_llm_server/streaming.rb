# frozen_string_literal: true

require 'json'

class ScriptedLLMServer
  # A streamed answer (a request with "stream": true, as chat.ask with a block sends):
  # the same rendered answer, cut into the server-sent events the protocol streams.
  # A text arrives word by word, so a streaming block sees several chunks; a tool
  # call arrives whole. Chat Completions sends chat.completion.chunk objects, then
  # [DONE]; the Responses API sends its typed events, ending in response.completed.
  module Streaming
    STREAMED = %i[chat_completions responses].freeze

    private

    def streamed?(protocol, body)
      body.is_a?(Hash) && body['stream'] == true && STREAMED.include?(protocol)
    end

    def events_of(protocol, payload)
      protocol == :chat_completions ? completion_events(payload) : response_events(payload)
    end

    def pieces(text)
      text.to_s.scan(/\S+\s*|\s+/)
    end

    def completion_events(payload)
      choice = payload[:choices].first
      base = payload.slice(:id, :created, :model).merge(object: 'chat.completion.chunk')
      chunks = completion_deltas(choice[:message]).map do |delta|
        base.merge(choices: [{ index: 0, delta:, finish_reason: nil }])
      end
      chunks << base.merge(choices: [{ index: 0, delta: {}, finish_reason: choice[:finish_reason] }],
                           usage: payload[:usage])
      (chunks.map { |chunk| "data: #{JSON.generate(chunk)}\n\n" } << "data: [DONE]\n\n").join
    end

    # The message's text word by word, then its tool calls; the first delta names the role.
    def completion_deltas(message)
      deltas = pieces(message[:content]).map { |piece| { content: piece } }
      calls = message[:tool_calls].to_a.each_with_index.map { |call, index| call.merge(index:) }
      deltas << { tool_calls: calls } unless calls.empty?
      deltas[0] = { role: 'assistant' }.merge(deltas[0] || {})
      deltas
    end

    def response_events(payload)
      events = payload[:output].each_with_index.flat_map { |item, index| item_events(item, index) }
      events << ['response.completed', { response: payload }]
      events.map { |type, data| "event: #{type}\ndata: #{JSON.generate(data.merge(type:))}\n\n" }.join
    end

    def item_events(item, index)
      started = item[:type] == 'function_call' ? item.merge(arguments: '') : item
      added = ['response.output_item.added', { output_index: index, item: started }]
      done = ['response.output_item.done', { output_index: index, item: }]
      deltas = if item[:type] == 'function_call'
                 [['response.function_call_arguments.delta', { output_index: index, delta: item[:arguments] }]]
               else
                 pieces(item.dig(:content, 0, :text)).map do |piece|
                   ['response.output_text.delta', { output_index: index, content_index: 0, delta: piece }]
                 end
               end
      [added, *deltas, done]
    end
  end
end
