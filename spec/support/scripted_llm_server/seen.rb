# frozen_string_literal: true

require 'base64'
require 'json'

class ScriptedLLMServer
  # What the model of a scripted turn sees in a request, whatever the protocol:
  # the tools it is offered, the calls it made, and the passages it can quote.
  # A passage is a run of consecutive lines: a PDF attached in full (its text
  # strings, in order), a read_file result (its numbered lines), or one line a
  # search_files result shows.
  class Seen
    SEARCH_HIT = /\A(?<path>[^\s:][^:]*):(?<line>\d+): (?<text>.*)\z/
    READ_LINE = /\A\s*(?<line>\d+)\t(?<text>.*)\z/

    attr_reader :protocol, :body

    def initialize(protocol, body)
      @protocol = protocol
      @body = body
    end

    # The names of the tools the request offers.
    def tools
      Array(body['tools']).map { |tool| tool['name'] || tool.dig('function', 'name') }
    end

    def tool?(name)
      tools.include?(name.to_s)
    end

    # [[name, arguments Hash], ...] the model called earlier in the conversation,
    # or (+since_question+) since the latest question.
    def calls(since_question: false)
      (since_question ? items.drop(question_index + 1) : items).flat_map { |item| calls_in(item) }
    end

    # Whether the model called +name+ with arguments including +arguments+, in
    # the conversation or (+since_question+) since the latest question.
    def called?(name, since_question: false, **arguments)
      calls(since_question:).any? do |called, given|
        called == name.to_s && arguments.all? { |key, value| given[key.to_s] == value }
      end
    end

    # The text of the last tool result, when the request ends with one.
    def last_tool_output
      last = items.last || {}
      return last['content'] if last['role'] == 'tool'
      return last['output'] if last['type'] == 'function_call_output'

      block = Array(last['content']).grep(Hash).reverse.find { |part| part['type'] == 'tool_result' }
      block && texts(block['content']).join("\n")
    end

    # The line +after+ lines past the first line holding +pattern+ in a passage,
    # or nil when no passage shows both.
    def passage(pattern, after: 0)
      passages.each do |lines|
        index = lines.index { |line| line.include?(pattern) }
        return lines[index + after] if index && lines[index + after]
      end
      nil
    end

    # [path, line number] of a search_files hit for +pattern+, or nil.
    def search_hit(pattern)
      all_lines.each do |line|
        hit = SEARCH_HIT.match(line)
        return [hit[:path], hit[:line].to_i] if hit && hit[:text].include?(pattern)
      end
      nil
    end

    # Every passage, each an Array of lines.
    def passages
      runs = all_lines.chunk_while { |a, b| READ_LINE.match?(a) && READ_LINE.match?(b) }
      documents + runs.flat_map { |run| passages_in(run) }
    end

    private

    def items
      Array(body['messages'] || body['input'])
    end

    # Where the latest question is: a user message that is not only tool results.
    def question_index
      items.rindex do |item|
        item['role'] == 'user' &&
          !(item['content'].is_a?(Array) && item['content'].all? { |part| part['type'] == 'tool_result' })
      end || -1
    end

    # A run of read_file lines is one passage; each search hit is one of its own.
    def passages_in(run)
      return [run.map { |line| READ_LINE.match(line)[:text] }] if READ_LINE.match?(run.first)

      run.filter_map { |line| (hit = SEARCH_HIT.match(line)) && [hit[:text]] }
    end

    # The calls in one item, as each protocol writes them.
    def calls_in(item)
      chat = Array(item['tool_calls']).map { |call| [call.dig('function', 'name'), parse(call.dig('function', 'arguments'))] }
      anthropic = Array(item['content']).grep(Hash).select { |block| block['type'] == 'tool_use' }
                                        .map { |block| [block['name'], block['input'] || {}] }
      responses = item['type'] == 'function_call' ? [[item['name'], parse(item['arguments'])]] : []
      chat + anthropic + responses
    end

    def parse(arguments)
      arguments.is_a?(String) ? JSON.parse(arguments) : (arguments || {})
    rescue JSON::ParserError
      {}
    end

    def all_lines
      texts(items).flat_map { |text| text.split("\n") }
    end

    # Every text the request carries, in order.
    def texts(value)
      case value
      when String then [value]
      when Array then value.flat_map { |item| texts(item) }
      when Hash then %w[text content output].flat_map { |key| texts(value[key]) }
      else []
      end
    end

    # The text strings of every PDF sent in full, one passage per PDF.
    def documents
      encoded(items).filter_map do |data|
        pdf = Base64.decode64(data.sub(/\Adata:[^,]*,/, ''))
        pdf.start_with?('%PDF') ? pdf.scan(/\((.*?)\)\s*Tj/).flatten : nil
      end
    end

    def encoded(value)
      case value
      when Array then value.flat_map { |item| encoded(item) }
      when Hash
        own = [value['file_data'], value['type'] == 'base64' ? value['data'] : nil].grep(String)
        own + value.values.flat_map { |item| encoded(item) }
      else []
      end
    end
  end
end
