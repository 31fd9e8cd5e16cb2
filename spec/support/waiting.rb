# frozen_string_literal: true

# Waiting in a spec for what holds a moment only (a worker running, a process alive).
module Waiting
  # The first truthy answer of the block, asked every +every+ seconds for at most
  # +seconds+, or the last answer: never a second look after the one that saw it, which
  # a worker that finished meanwhile would answer falsely.
  def wait_until(seconds, every: 0.01)
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + seconds
    loop do
      seen = yield
      return seen if seen || Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline

      sleep every
    end
  end
end
