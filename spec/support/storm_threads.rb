# frozen_string_literal: true

require 'io/wait'

# What a storm's child process is doing when it does not end in time.
module StormThreads
  module_function

  # Every thread's state and innermost 30 frames, then what Active Support's load
  # interlock holds (a storm on Rails 6.1 once stuck with two threads waiting to enter
  # it and no live thread inside).
  def backtraces
    Thread.list.map { |thread| "#{thread.inspect}\n  #{Array(thread.backtrace).first(30).join("\n  ")}\n" }.join +
      interlock
  end

  # What a storm's child reports when +error+ ends it: the error and, since Ruby's
  # "No live threads left. Deadlock?" leaves the other threads where they stood,
  # their backtraces.
  def failure(error)
    "#{error.class}: #{error.message} #{Array(error.backtrace).first(8)}\n#{backtraces}"
  end

  def interlock
    lock = defined?(ActiveSupport::Dependencies.interlock) && ActiveSupport::Dependencies.interlock.instance_variable_get(:@lock)
    return '' unless lock

    state = %i[@exclusive_thread @sharing @waiting].to_h { |name| [name, lock.instance_variable_get(name)] }
    "load interlock: #{state.inspect}\n"
  end

  # The line the child +pid+ writes to +reader+ within +seconds+; past them the child
  # writes its threads' backtraces to +dump+ (on USR1) and has as long again.
  def answer(reader, pid, seconds, dump)
    found = reader.wait_readable(seconds) && reader.gets
    return found if found

    Process.kill(:USR1, pid)
    found = reader.wait_readable(seconds) && reader.gets
    warn "the storm ended #{seconds} s late; its threads then:\n#{read(dump)}" if found
    found
  end

  # What +dump+ holds, if the child wrote it.
  def read(dump)
    File.exist?(dump) ? File.read(dump) : 'no backtraces'
  end
end
