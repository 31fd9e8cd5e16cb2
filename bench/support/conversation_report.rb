# frozen_string_literal: true

require_relative '../../spec/support/scripted_llm_server/prompt_cache'

# Prints what bench/conversation.rb measured: per ruby_llm, provider and
# configuration the requests, their cache use and price; then the totals and the
# goals.
class ConversationReport
  ANTHROPIC = { read: 0.1, write: 1.25 }.freeze
  OPENAI = { 'gpt-4o' => 0.5, 'gpt-5' => 0.1 }.freeze
  BASELINES = ['no store', 'no store + caching', 'store'].freeze
  HIT_GOAL = 95.0

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
    puts "== ruby_llm #{result['ruby_llm']}: documents #{result['documents'].map { |k, v| "#{k} #{v} bytes" }.join(', ')}, " \
         "instructions #{result['instructions']} bytes"
    result['runs'].each do |provider, runs|
      runs.each { |name, run| print_run(provider, name, run) }
      print_totals(provider, runs)
      print_goals(provider, runs)
    end
    answers = result['runs'].values.flat_map(&:values).map { |run| run['answers'] }.uniq
    puts "goal: the same answers, from the same passages, in every configuration: #{answers.size == 1 ? 'HOLDS' : 'FAILS'}"
    answers.first.each_with_index { |answer, i| puts format('  %2d. %s', i + 1, answer) } if answers.size == 1
    puts
  end

  def print_run(provider, name, run)
    puts "-- #{provider}, #{name}: per request (tokens = bytes / 4)"
    puts format('%3s %9s %8s %7s %8s %8s %9s %6s %9s  %s', 'q', 'bytes', 'shared', 'read', 'written', 'uncached',
                'price', 'hit', 'of shared', provider == 'anthropic' ? '(read 0.1x, write 1.25x)' : '(cached 0.5x)')
    run['requests'].each do |request|
      usage = request['usage']
      puts format('%3d %9d %7.1f%% %7d %8d %8d %9.0f %5.1f%% %8.1f%%', request['question'], request['bytes'],
                  percent(request['shared'], request['prompt']), usage['read'], usage['write'], usage['input'],
                  self.class.price(usage, provider, 0.5), hit(request), of_shared(request))
    end
  end

  # The share of a request's tokens read from the cache.
  def hit(request)
    percent(request['usage']['read'], self.class.tokens(request['usage']))
  end

  # The share of what the request shares with the previous one that was read from the cache.
  def of_shared(request)
    shared = ScriptedLLMServer::PromptCache.tokens(request['shared'])
    shared.zero? ? 0.0 : [percent(request['usage']['read'], shared), 100.0].min
  end

  def print_totals(provider, runs)
    columns = provider == 'anthropic' ? ['priced'] : OPENAI.keys.map { |model| "priced #{model}" }
    puts "-- #{provider}: totals"
    puts format("%-20s %10s %10s #{'%14s ' * columns.size}", 'configuration', 'bytes', 'tokens', *columns)
    runs.each do |name, run|
      puts format("%-20s %10d %10d #{'%14.0f ' * columns.size}", name, bytes(run), run_tokens(run), *prices(provider, run))
    end
  end

  def print_goals(provider, runs)
    best = prices(provider, runs['store + caching'])
    BASELINES.each do |baseline|
      if sizes(runs[baseline]) == sizes(runs['store + caching'])
        puts "  #{provider}: #{baseline} sends what store + caching sends (its cache needs no asking)"
        next
      end
      holds = best.zip(prices(provider, runs[baseline])).all? { |ours, theirs| ours < theirs }
      puts "goal: #{provider}, store + caching priced below #{baseline}: #{holds ? 'HOLDS' : 'FAILS'} " \
           "(#{prices_ratio(best, prices(provider, runs[baseline]))})"
    end
    lines = prices(provider, runs['lines + caching'])
    quarter = lines.zip(prices(provider, runs['no store + caching'])).map { |ours, theirs| ours / theirs }
    puts "goal: #{provider}, lines + caching at most a quarter of no store + caching: " \
         "#{quarter.all? { |share| share <= 0.25 } ? 'HOLDS' : 'FAILS'} (#{quarter.map { |s| format('%.3f', s) }.join(', ')})"
    puts "  lines + caching against store + caching: #{prices_ratio(lines, best)}"
    print_question_one(runs)
    ['store + caching', 'lines + caching'].each { |name| print_hits(provider, name, runs[name]) }
  end

  def print_question_one(runs)
    full = question_bytes(runs['store'], 1)
    lines = question_bytes(runs['lines + caching'], 1)
    puts "  question 1 sends #{full} bytes with a store, #{lines} with attachments: :lines " \
         "(#{format('%.1f', percent(full - lines, full))}% less)"
  end

  # From question 2, the requests under the goal's hit share, and why.
  def print_hits(provider, name, run)
    later = run['requests'].select { |request| request['question'] >= 2 }
    under = later.reject { |request| hit(request) >= HIT_GOAL }
    reasons = under.group_by { |request| reason(provider, request) }
    held = (reasons.keys - [:changed]).empty?
    served = later.reject { |request| reason(provider, request) == :minimum }.map { |request| of_shared(request) }.min
    puts "goal: #{provider}, #{name}, from question 2 at least #{HIT_GOAL.to_i}% of each request a cache hit " \
         "except where a message changes: #{held ? 'HOLDS' : 'FAILS'} (#{later.size - under.size} of #{later.size} " \
         "requests; of what a request shares with the one before, the cache served #{format('%.1f', served)}% " \
         'or more, past the minimum)'
    reasons.each { |why, requests| print_reason(why, requests) }
  end

  def reason(provider, request)
    minimum = provider == 'anthropic' ? ScriptedLLMServer::PromptCache::ANTHROPIC_MINIMUM : ScriptedLLMServer::PromptCache::OPENAI_MINIMUM
    return :minimum if ScriptedLLMServer::PromptCache.tokens(request['previous']) < minimum
    return :changed if request['shared'] < request['previous']

    :new
  end

  def print_reason(why, requests)
    questions = requests.map { |request| request['question'] }.uniq.join(', ')
    case why
    when :changed then puts "  #{requests.size} where the seed's rules changed a message (questions #{questions})"
    when :minimum then puts "  #{requests.size} after a request under the 1,024-token minimum of a cached prompt (questions #{questions})"
    else
      requests.each do |request|
        added = request['prompt'] - request['previous']
        puts format('  question %d: %.1f%% hit, all it could: %d of its %d bytes (%.1f%%) are new in this request',
                    request['question'], hit(request), added, request['prompt'], percent(added, request['prompt']))
      end
    end
  end

  def sizes(run)
    run['requests'].map { |request| request['bytes'] }
  end

  def print_versions
    bytes = @results.map { |result| result['runs'].transform_values { |runs| runs.transform_values { |run| run['requests'].map { |r| r['bytes'] } } } }
    same = bytes.uniq.size == 1
    puts "the same bytes on #{@results.map { |result| result['ruby_llm'] }.join(' and ')}: #{same ? 'yes' : 'no'}"
    return if same

    bytes.first.each do |provider, runs|
      runs.each do |name, sizes|
        other = bytes.last[provider][name]
        puts "  #{provider}, #{name}: #{sizes.sum} against #{other.sum} bytes" unless sizes == other
      end
    end
  end

  def prices(provider, run)
    multipliers = provider == 'anthropic' ? [nil] : OPENAI.values
    multipliers.map { |multiplier| run['requests'].sum { |request| self.class.price(request['usage'], provider, multiplier) } }
  end

  def prices_ratio(ours, theirs)
    ours.zip(theirs).map { |a, b| format('%.0f against %.0f (%.2fx)', a, b, a / b) }.join('; ')
  end

  def bytes(run)
    run['requests'].sum { |request| request['bytes'] }
  end

  def run_tokens(run)
    run['requests'].sum { |request| self.class.tokens(request['usage']) }
  end

  def question_bytes(run, question)
    run['requests'].select { |request| request['question'] == question }.sum { |request| request['bytes'] }
  end

  def percent(part, whole)
    whole.zero? ? 0.0 : 100.0 * part / whole
  end
end
