# frozen_string_literal: true

module RubyLLM
  class FileStore
    class CodeRunner
      # A runner's limits: DEFAULT_LIMITS with the caller's, refused when the runner is
      # set up if a run would refuse them (an unknown name, a value the core does not
      # take), so a bad setting never reaches the model as an error on every run.
      module Limits # :nodoc:
        module_function

        # Every limit of a runner given +limits+ and +timeout+ (a finite positive
        # number of seconds, by the core's rule), or an ArgumentError naming the
        # first one refused.
        def of(limits, timeout)
          raise ArgumentError, "timeout must be a positive number of seconds, not #{timeout.inspect}" unless
            timeout.is_a?(Numeric)

          unknown = limits.keys - DEFAULT_LIMITS.keys
          raise ArgumentError, "unknown limit #{unknown.first.inspect} (known: #{DEFAULT_LIMITS.keys.join(', ')})" if
            unknown.any?

          # The folder's files are read up to save_bytes before a run, to tell a change by content.
          all = DEFAULT_LIMITS.merge(limits).then { |merged| merged.merge(digest_bytes: merged[:save_bytes]) }
          Native.check_run_limits(timeout.to_f, native(all))
          all
        end

        # The ones the native runner takes.
        def native(all) = all.slice(*NATIVE_LIMITS, :digest_bytes)
      end
    end
  end
end
