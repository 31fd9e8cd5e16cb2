# frozen_string_literal: true

# The goals bench/conversation.rb checks, for ConversationReport: the store with
# caching priced below the other configurations, attachments: :lines with caching
# at most a quarter of no store with caching, and from question 2 at least 95% of
# each request read from the cache except where a message changes (with the
# reason for each request under it).
module ConversationGoals
  BASELINES = ['no store', 'no store + caching', 'store'].freeze
  HIT_GOAL = 95.0
  CACHED = ['store + caching', 'lines + caching'].freeze

  private

  def print_goals(provider, runs)
    best = prices(provider, runs['store + caching'])
    BASELINES.each { |baseline| print_below(provider, runs, baseline, best) }
    lines = prices(provider, runs['lines + caching'])
    quarter = lines.zip(prices(provider, runs['no store + caching'])).map { |ours, theirs| ours / theirs }
    puts "goal: #{provider}, lines + caching at most a quarter of no store + caching: " \
         "#{verdict(quarter.all? { |share| share <= 0.25 })} (#{quarter.map { |s| format('%.3f', s) }.join(', ')})"
    puts "  lines + caching against store + caching: #{ratios(lines, best)}"
    print_question_one(runs)
    CACHED.each { |name| print_hits(provider, name, runs[name]) }
  end

  def print_below(provider, runs, baseline, best)
    if sizes(runs[baseline]) == sizes(runs['store + caching'])
      puts "  #{provider}: #{baseline} sends what store + caching sends (its cache needs no asking)"
      return
    end
    theirs = prices(provider, runs[baseline])
    holds = best.zip(theirs).all? { |ours, other| ours < other }
    puts "goal: #{provider}, store + caching priced below #{baseline}: #{verdict(holds)} (#{ratios(best, theirs)})"
  end

  def ratios(ours, theirs)
    ours.zip(theirs).map { |a, b| "#{a.round} against #{b.round} (#{format('%.2f', a / b)}x)" }.join('; ')
  end

  def print_question_one(runs)
    full = question_bytes(runs['store'], 1)
    lines = question_bytes(runs['lines + caching'], 1)
    puts "  question 1 sends #{full} bytes with a store, #{lines} with attachments: :lines " \
         "(#{format('%.1f', percent(full - lines, full))}% less)"
  end

  def question_bytes(run, question)
    run['requests'].select { |request| request['question'] == question }.sum { |request| request['bytes'] }
  end

  # From question 2, the requests under the goal's hit share, and why.
  def print_hits(provider, name, run)
    later = run['requests'].select { |request| request['question'] >= 2 }
    under = later.reject { |request| hit(request) >= HIT_GOAL }
    reasons = under.group_by { |request| reason(provider, request) }
    puts "goal: #{provider}, #{name}, from question 2 at least #{HIT_GOAL.to_i}% of each request a cache hit " \
         "except where a message changes: #{verdict((reasons.keys - [:changed]).empty?)} " \
         "(#{later.size - under.size} of #{later.size} requests)"
    reasons.each { |why, requests| print_reason(why, requests) }
    print_served(later)
  end

  # How much of what each request shares with the one before the cache served.
  def print_served(requests)
    short = requests.reject { |request| of_shared(request) >= 90 }
    line = '  of what a request shares with the one before, the cache served 90% or more in ' \
           "#{requests.size - short.size} of #{requests.size}"
    questions = short.map { |request| request['question'] }.uniq.join(', ')
    if short.any?
      line += "; the rest (questions #{questions}) follow a request whose cacheable prefix was under 1,024 tokens"
    end
    puts line
  end

  def reason(provider, request)
    cache = ScriptedLLMServer::PromptCache
    minimum = provider == 'anthropic' ? cache::ANTHROPIC_MINIMUM : cache::OPENAI_MINIMUM
    return :minimum if cache.tokens(request['previous']) < minimum
    return :changed if request['shared'] < request['previous']

    :new
  end

  def print_reason(why, requests)
    questions = requests.map { |request| request['question'] }.uniq.join(', ')
    case why
    when :changed then puts "  #{requests.size} where the seed's rules changed a message (questions #{questions})"
    when :minimum
      puts "  #{requests.size} after a request under a cached prompt's 1,024-token minimum (questions #{questions})"
    else requests.each { |request| print_new(request) }
    end
  end

  def print_new(request)
    added = request['prompt'] - request['previous']
    puts "  question #{request['question']}: #{percent_text(hit(request))} hit, all it could: #{added} of its " \
         "#{request['prompt']} bytes (#{percent_text(percent(added, request['prompt']))}) are new in this request"
  end

  def percent_text(value)
    "#{format('%.1f', value)}%"
  end

  def verdict(holds)
    holds ? 'HOLDS' : 'FAILS'
  end

  # The share of a request's tokens read from the cache.
  def hit(request)
    percent(request['usage']['read'], ConversationReport.tokens(request['usage']))
  end

  # The share of what the request shares with the previous one that was read from the cache.
  def of_shared(request)
    shared = ScriptedLLMServer::PromptCache.tokens(request['shared'])
    shared.zero? ? 0.0 : [percent(request['usage']['read'], shared), 100.0].min
  end
end
