# frozen_string_literal: true

require 'json'

# What one recorded request body carried, message by message, as the demo prints
# it: each message's role and a short account of its parts (text, an attached
# file and its bytes, a tool call, a tool's result), read from the JSON the
# provider received, in OpenAI's Chat Completions shape (messages) or the
# Responses API's (input).
#
#   RequestSummary.new(body).lines # => ["user       \"Summarize...\" + contract.pdf: 67,432 bytes of base64", ...]
class RequestSummary
  FILE_TYPES = %w[file input_file image_url input_image input_audio].freeze

  def initialize(body)
    @body = body
  end

  # One line per message or item of the request.
  def lines
    items = @body['messages'] || @body['input'] || []
    items.map { |item| line(item) }
  end

  # The tool definitions the request carried, and their bytes.
  def tools
    tools = @body['tools'] || []
    [tools.size, tools.empty? ? 0 : JSON.generate(tools).bytesize]
  end

  def self.number(value)
    value.to_s.reverse.scan(/\d{1,3}/).join(',').reverse
  end

  private

  def line(item)
    role = item['role'] || item['type'].to_s.sub('function_call_output', 'tool').sub('function_call', 'assistant')
    format('%-10<role>s %<parts>s', role:, parts: parts(item).join(' + '))
  end

  def parts(item)
    return ["result: #{characters(item['output'])}"] if item['type'] == 'function_call_output'
    return ["calls #{item['name']}(#{item['arguments']})"] if item['type'] == 'function_call'

    own = content_parts(item['content'])
    own = ["result: #{characters(text_of(item['content']))}"] if item['role'] == 'tool'
    calls = (item['tool_calls'] || []).map { |call| call_text(call['function']) }
    (own + calls).then { |all| all.empty? ? ['(empty)'] : all }
  end

  def call_text(function)
    "calls #{function['name']}(#{function['arguments']})"
  end

  def content_parts(content)
    case content
    when String then paragraphs(content)
    when Array then content.flat_map { |part| part_text(part) }
    else []
    end
  end

  def part_text(part)
    return file_text(part) if FILE_TYPES.include?(part['type'])

    paragraphs(part['text'].to_s)
  end

  # A message's text, a quote a paragraph: a file's one line is shown whole.
  def paragraphs(text)
    text.split(/\n{2,}/).reject { |paragraph| paragraph.strip.empty? }.map { |paragraph| quote(paragraph) }
  end

  def file_text(part)
    name = part['filename'] || part.dig('file', 'filename') || part['type']
    "#{name}: #{RequestSummary.number(JSON.generate(part).bytesize)} bytes of base64"
  end

  def text_of(content)
    content.is_a?(Array) ? content.map { |part| part['text'].to_s }.join : content.to_s
  end

  # A tool's result: its size, how it starts and how it ends, with the note that
  # ends a saved result whole.
  def characters(text)
    text = text_of(text)
    flat = text.gsub(/\s+/, ' ').strip
    ending = flat[/\[[^\[\]]*\]\z/] || flat[-60..]
    shown = flat.length <= 120 ? flat : "#{flat[0, 40]} ... #{ending}"
    "#{RequestSummary.number(text.length)} characters: \"#{shown}\""
  end

  # A text as the model got it, cut to one short line.
  def quote(text)
    flat = text.gsub(/\s+/, ' ').strip
    return "\"#{flat}\"" if flat.length <= 80

    "\"#{flat[0, 67]}...\" (#{RequestSummary.number(text.length)} characters)"
  end
end
