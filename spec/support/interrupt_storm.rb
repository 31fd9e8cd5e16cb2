# frozen_string_literal: true

require 'timeout'

# Interrupts a store's calls at random points, as a Puma or Sidekiq process does all
# day: Timeout.timeout, Thread#raise with an application's own StandardError, and
# Thread#kill. Timeouts and raises land in worker threads that live on and take the
# next call, as a server's threads do; a killed thread is replaced.
module InterruptStorm
  # What an application raises into a thread (a request timeout of its own).
  class AppError < StandardError; end

  KINDS = %i[timeout raise kill].freeze

  module_function

  # Runs +count+ calls of the block (given a Random) from +workers+ threads, each call
  # stopped by one of KINDS after a random delay of up to +longest+ seconds (those that
  # finish first are not stopped). Returns how many calls each kind was sent to.
  def run(count:, workers:, longest:, seed:, &work)
    sent = Hash.new(0)
    jobs = Queue.new
    rng = Random.new(seed)
    count.times do
      kind = KINDS[rng.rand(KINDS.size)]
      sent[kind] += 1
      jobs << [kind, rng.rand(0.0..longest), rng.rand(2**31)]
    end
    workers.times { jobs << nil }
    Array.new(workers) { Thread.new { work_through(jobs, &work) } }.each(&:join)
    sent
  end

  def work_through(jobs, &work)
    while (job = jobs.pop)
      kind, delay, job_seed = job
      interrupted(kind, delay) { work.call(Random.new(job_seed)) }
    end
  end

  def interrupted(kind, delay, &work)
    case kind
    when :timeout then timed_out(delay, &work)
    when :raise then raised_into(delay, &work)
    when :kill then killed(delay, &work)
    end
  end

  def timed_out(delay, &)
    Timeout.timeout(delay, &)
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
