# frozen_string_literal: true

require 'English'
require_relative 'toolchain'

# Runs the cargo command it is given, so that whoever waits on it sees it working.
#
# RubyGems and Bundler capture a build's output and show it only after the build (when
# it fails, or with --verbose), so during a build of several minutes a user sees
# nothing. Cargo's own lines go to standard output as they come, which is where the
# install's log (gem_make.out) takes them; and when standard output is not a terminal
# but the install was started from one, a line on that terminal says the build has
# started and another each minute how far it is.
module RubyLLMFileStoreBuild
  # A cargo build with a line a minute on the terminal.
  class CargoBuild
    INTERVAL = 60

    def initialize(command, out: $stdout, terminal: self.class.terminal(out))
      @command = command
      @out = out
      @terminal = terminal
      @compiled = 0
      @started = now
    end

    # The terminal the install runs from, when its output is captured; nil otherwise.
    def self.terminal(out)
      return if out.tty?

      File.open('/dev/tty', 'w')
    rescue SystemCallError
      nil
    end

    # Runs the command; returns its Process::Status.
    def run
      say 'compiling the native extension with cargo; this takes minutes (a precompiled gem exists for ' \
          "#{Toolchain::PRECOMPILED})"
      ticker = @terminal && Thread.new { tick }
      IO.popen(@command, err: %i[child out]) do |cargo|
        cargo.each_line do |line|
          @out.print(line)
          @out.flush
          @compiled += 1 if line.match?(/\A\s*Compiling /)
        end
      end
      ticker&.kill
      say "cargo finished in #{elapsed}" if $CHILD_STATUS&.success?
      $CHILD_STATUS
    end

    private

    def tick
      loop do
        sleep INTERVAL
        say "cargo is still compiling: #{elapsed} so far, #{@compiled} crates compiled"
      end
    end

    def say(text)
      line = "ruby_llm-file_store: #{text}"
      @out.puts(line)
      @out.flush
      return unless @terminal

      @terminal.puts(line)
      @terminal.flush
    rescue IOError, SystemCallError
      @terminal = nil # the terminal went away; the log still has every line
    end

    def elapsed
      seconds = (now - @started).floor
      seconds < 60 ? "#{seconds} s" : format('%<m>d min %<s>02d s', m: seconds / 60, s: seconds % 60)
    end

    def now
      Process.clock_gettime(Process::CLOCK_MONOTONIC)
    end
  end
end

if $PROGRAM_NAME == __FILE__
  status = RubyLLMFileStoreBuild::CargoBuild.new(ARGV).run
  exit(status&.exitstatus || 1)
end
