# frozen_string_literal: true

require_relative '../../spec/support/scripted_llm_server/prompt_cache'
require_relative 'conversation_goals'

# Prints what bench/conversation.rb measured: per ruby_llm, provider and
# configuration the requests, their cache use and price; then the totals and the
# goals (ConversationGoals).
class ConversationReport
  include ConversationGoals

  ANTHROPIC = { read: 0.1, write: 1.25 }.freeze
  OPENAI = { 'gpt-4o' => 0.5, 'gpt-5' => 0.1 }.freeze
  REQUEST_COLUMNS = { 'q' => 3, 'bytes' => 9, 'shared' => 8, 'read' => 7, 'written' => 8, 'uncached' => 8,
                      'price' => 9, 'hit' => 6, 'of shared' => 9 }.freeze

  def initialize(results)
    @results = results
  end

  def print
    @results.each { |result| print_set(result) }
    print_versions if @results.size > 1
  end

  # The price of one request in input-token units.
  def self.price(usage, provider, multiplier = nil)
    if provider == 'anthropic'
      usage['input'] + (ANTHROPIC[:read] * usage['read']) + (ANTHROPIC[:write] * usage['write'])
    else
      usage['input'] + (multiplier * usage['read'])
    end
  end

  def self.tokens(usage)
    usage['input'] + usage['read'] + usage['write']
  end

  private

  def print_set(result)
    documents = result['documents'].map { |name, size| "#{name} #{size} bytes" }.join(', ')
    puts "== ruby_llm #{result['ruby_llm']}: documents #{documents}, instructions #{result['instructions']} bytes"
    result['runs'].each do |provider, runs|
      runs.each { |name, run| print_run(provider, name, run) }
      print_totals(provider, runs)
      print_goals(provider, runs)
    end
    print_answers(result)
    puts
  end

  def print_run(provider, name, run)
    multipliers = provider == 'anthropic' ? '(read 0.1x, write 1.25x)' : '(cached 0.5x)'
    puts "-- #{provider}, #{name}: per request (tokens = bytes / 4) #{multipliers}"
    puts row(REQUEST_COLUMNS.values, REQUEST_COLUMNS.keys)
    run['requests'].each { |request| puts row(REQUEST_COLUMNS.values, request_cells(provider, request)) }
  end

  def request_cells(provider, request)
    usage = request['usage']
    [request['question'], request['bytes'], percent_text(percent(request['shared'], request['prompt'])),
     usage['read'], usage['write'], usage['input'], self.class.price(usage, provider, 0.5).round,
     percent_text(hit(request)), percent_text(of_shared(request))]
  end

  def print_totals(provider, runs)
    columns = provider == 'anthropic' ? ['priced'] : OPENAI.keys.map { |model| "priced #{model}" }
    widths = [20, 10, 10] + ([14] * columns.size)
    puts "-- #{provider}: totals"
    puts row(widths, ['configuration', 'bytes', 'tokens', *columns])
    runs.each do |name, run|
      puts row(widths, [name, bytes(run), run_tokens(run), *prices(provider, run).map(&:round)])
    end
  end

  def print_answers(result)
    answers = result['runs'].values.flat_map(&:values).map { |run| run['answers'] }.uniq
    puts "goal: the same answers, from the same passages, in every configuration: #{verdict(answers.size == 1)}"
    answers.first.each_with_index { |answer, i| puts "  #{(i + 1).to_s.rjust(2)}. #{answer}" } if answers.size == 1
  end

  def print_versions
    first, last = [@results.first, @results.last].map { |result| sizes_by_run(result) }
    versions = @results.map { |result| result['ruby_llm'] }.join(' and ')
    puts "the same bytes on #{versions}: #{first == last ? 'yes' : 'no'}"
    first.each do |name, sizes|
      puts "  #{name}: #{sizes.sum} against #{last[name].sum} bytes" unless sizes == last[name]
    end
  end

  def sizes_by_run(result)
    result['runs'].flat_map { |provider, runs| runs.map { |name, run| ["#{provider}, #{name}", sizes(run)] } }.to_h
  end

  def row(widths, cells)
    cells.zip(widths).each_with_index.map do |(cell, width), index|
      index.zero? && width > 3 ? cell.to_s.ljust(width) : cell.to_s.rjust(width)
    end.join(' ')
  end

  def prices(provider, run)
    multipliers = provider == 'anthropic' ? [nil] : OPENAI.values
    multipliers.map do |multiplier|
      run['requests'].sum { |request| self.class.price(request['usage'], provider, multiplier) }
    end
  end

  def sizes(run)
    run['requests'].map { |request| request['bytes'] }
  end

  def bytes(run)
    sizes(run).sum
  end

  def run_tokens(run)
    run['requests'].sum { |request| self.class.tokens(request['usage']) }
  end

  def percent(part, whole)
    whole.zero? ? 0.0 : 100.0 * part / whole
  end
end
