# frozen_string_literal: true

# The checks a `bin/rails runner` script makes in a generated application: one line
# each (ok or FAIL, with the detail of a failure), then a summary, and exit status 1
# when any failed.
class Checks
  def initialize
    @failures = []
  end

  def call(label, passed, detail = nil)
    puts "#{passed ? 'ok  ' : 'FAIL'} #{label}#{" (#{detail})" if detail && !passed}"
    @failures << label unless passed
  end

  def finish!
    puts @failures.empty? ? 'all checks passed' : "#{@failures.size} check(s) failed"
    exit(1) unless @failures.empty?
  end
end
