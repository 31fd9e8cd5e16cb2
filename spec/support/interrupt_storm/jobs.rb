# frozen_string_literal: true

module InterruptStorm
  # The calls of one storm, drawn as the workers ask for them: the same calls in the
  # same order for a seed, until +count+ are sent or, with +seconds+, until that long
  # has passed (a storm of a set length lasts as long on a fast machine as on a busy one).
  class Jobs
    # How many calls each kind was sent to.
    attr_reader :sent

    def initialize(rng, kinds:, longest:, count:, seconds:)
      @rng = rng
      @kinds = kinds
      @longest = longest
      @left = count
      @until = seconds && (now + seconds)
      @sent = Hash.new(0)
      @mutex = Mutex.new
    end

    # The next call's kind, delay and seed, or nil once the storm is over.
    def next_job
      @mutex.synchronize do
        next if @left <= 0 || (@until && now >= @until)

        @left -= 1
        kind = @kinds[@rng.rand(@kinds.size)]
        @sent[kind] += 1
        [kind, @rng.rand(0.0..@longest), @rng.rand(2**31)]
      end
    end

    private

    def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  end
end
