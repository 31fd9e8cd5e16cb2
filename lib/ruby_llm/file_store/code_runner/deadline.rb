# frozen_string_literal: true

module RubyLLM
  class FileStore
    class CodeRunner
      # The end of a run_code call's time: the timeout holds for the whole call,
      # copying in and saving back included, not for the run's process alone.
      class Deadline # :nodoc:
        attr_reader :seconds

        def initialize(seconds)
          @seconds = seconds
          @at = Deadline.now + seconds
        end

        def self.now = Process.clock_gettime(Process::CLOCK_MONOTONIC)

        # The seconds left for the run (at least a millisecond, so that a call
        # whose time was spent still says how the run ended).
        def left = [@at - Deadline.now, 0.001].max

        def passed? = Deadline.now > @at
      end
    end
  end
end
