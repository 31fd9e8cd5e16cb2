# frozen_string_literal: true

require 'timeout'

# Interrupts a store's calls at random points, as a Puma or Sidekiq process does all
# day: Timeout.timeout, Thread#raise with an application's own StandardError (as
# Rack::Timeout raises), Timeout.timeout with such an error class, and Thread#kill. Timeouts and raises land in worker threads that live on and take the
# next call, as a server's threads do; a killed thread is replaced.
module InterruptStorm
  # What an application raises into a thread (a request timeout of its own).
  class AppError < StandardError; end

  KINDS = %i[timeout raise kill].freeze
  # Every kind: KINDS, and Timeout.timeout raising AppError.
  ALL_KINDS = (KINDS + %i[app_timeout]).freeze

  module_function

  # Runs +count+ calls of the block (given a Random), or as many as +seconds+ hold,
  # from +workers+ threads, each call stopped by one of +kinds+ after a random delay of
  # up to +longest+ seconds (those that finish first are not stopped). Returns how many
  # calls each kind was sent to.
  def run(workers:, longest:, seed:, count: Float::INFINITY, seconds: nil, kinds: KINDS, &work)
    raise ArgumentError, 'a storm needs a count or seconds' if count == Float::INFINITY && seconds.nil?

    jobs = Jobs.new(Random.new(seed), kinds:, longest:, count:, seconds:)
    threads = Array.new(workers) { Thread.new { work_through(jobs, &work) } }
    join_or_report(threads, seconds: 600 + seconds.to_f)
    jobs.sent
  end

  # How long a spec's storm lasts: RUBY_LLM_FILE_STORE_STORM_SECONDS, which
  # bin/test-databases sets to a minute, or +default+, short enough for the plain suite.
  def seconds(default)
    Float(ENV.fetch('RUBY_LLM_FILE_STORE_STORM_SECONDS', default))
  end

  # Joins +threads+, or fails within +seconds+ naming where each that still runs
  # waits: a storm that leaves a lock held would otherwise hang the suite for good.
  def join_or_report(threads, seconds:)
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + seconds
    threads.each do |thread|
      next if thread.join([deadline - Process.clock_gettime(Process::CLOCK_MONOTONIC), 0].max)

      waiting = threads.select(&:alive?).map { |t| t.backtrace.to_a.first(12).join("\n  ") }
      threads.each(&:kill)
      raise "the storm's threads did not end within #{seconds} s; where they wait:\n  #{waiting.join("\n\n  ")}"
    end
  end

  def work_through(jobs, &work)
    while (job = jobs.next_job)
      kind, delay, job_seed = job
      interrupted(kind, delay) { work.call(Random.new(job_seed)) }
    end
  end

  def interrupted(kind, delay, &work)
    case kind
    when :timeout then timed_out(delay, &work)
    when :app_timeout then timed_out(delay, AppError, &work)
    when :raise then raised_into(delay, &work)
    when :kill then killed(delay, &work)
    end
  end

  def timed_out(delay, error = nil, &)
    Timeout.timeout(delay, error, &)
  rescue StandardError => e
    raise unless interrupt?(e)
  end

  # The raise lands in the call, or after it while this thread waits for the raiser:
  # either way here, so the thread goes on to its next call.
  def raised_into(delay, &work)
    worker = Thread.current
    raiser = Thread.new do
      sleep delay
      worker.raise(AppError, 'the request took too long')
    end
    begin
      begin
        work.call
      ensure
        raiser.join
      end
    rescue StandardError => e
      raise unless interrupt?(e)
    end
  rescue AppError
    nil
  end

  # Whether +error+ is the interrupt, or an error it caused: Active Record reports an
  # exception that lands during a statement as ActiveRecord::StatementInvalid, its cause.
  def interrupt?(error)
    error = error.cause until error.nil? || error.is_a?(AppError) || error.is_a?(Timeout::Error)
    !error.nil?
  end

  def killed(delay, &work)
    victim = Thread.new do
      work.call
    rescue StandardError
      nil
    end
    sleep delay
    victim.kill
    victim.join
  end
end
