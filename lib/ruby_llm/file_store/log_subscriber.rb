# frozen_string_literal: true

require 'active_support/log_subscriber'

module RubyLLM
  class FileStore
    # Logs the gem's events (see Instrumentation), as Active Storage's
    # LogSubscriber logs its own: a line at debug level for each, and a warning
    # for each refused write, converter failure or refusal, and failed spill. The
    # Railtie loads it in a Rails app, whose log it writes to; elsewhere, require
    # it and give ActiveSupport::LogSubscriber a logger.
    #
    #   FileStore read_file notes/plan.md: ok, 1.2 KB out (0.4ms)
    #   FileStore refused write_file notes/plan.md (unread): notes/plan.md exists and has not been read. ...
    class LogSubscriber < ::ActiveSupport::LogSubscriber
      # The events whose lines are only ever debug lines: skipped cheaply where the
      # log's level is above debug (Rails 7.1 and later).
      if respond_to?(:subscribe_log_level, true)
        subscribe_log_level :tool, :debug
        subscribe_log_level :run_code, :debug
      end

      def tool(event)
        payload = event.payload
        result = payload[:outcome] == :error ? "error: #{payload[:error]}" : "ok, #{size(payload[:bytes_out])} out"
        debug { line(event, "#{payload[:tool]}#{" #{payload[:path]}" if payload[:path]}: #{result}") }
      end

      def convert(event)
        payload = event.payload
        about = "#{payload[:path]} (#{payload[:content_type]}, #{size(payload[:bytes_in])})"
        case payload[:outcome]
        when :failed then warn { line(event, "converter failed on #{about}: #{payload[:error]}") }
        when :refused then warn { line(event, "converter refused #{about}: #{payload[:error]}") }
        else debug { line(event, "converted #{about}: #{converted(payload)}") }
        end
      end

      def spill(event)
        payload = event.payload
        if payload[:outcome] == :failed
          warn do
            line(event, "kept a long #{payload[:tool]} result whole (#{size(payload[:bytes_in])}): #{payload[:error]}")
          end
        else
          debug do
            line(event, "spilled a #{payload[:tool]} result to #{payload[:path]}: #{size(payload[:bytes_in])}, " \
                        "#{size(payload[:bytes_out])} shown")
          end
        end
      end

      def run_code(event)
        payload = event.payload
        files = %i[created changed deleted].filter_map { |key| "#{payload[key]} #{key}" if payload[key].to_i.positive? }
        how = [payload[:sandbox] ? 'sandboxed' : 'unsandboxed', payload[:workspace] ? 'in the folder' : 'on copies']
        debug do
          line(event, "run_code #{payload[:language]} (#{how.join(', ')}): #{[ending(payload), *files].join(', ')}")
        end
      end

      def attachment(event)
        payload = event.payload
        if %i[refused too_large].include?(payload[:outcome])
          return warn { line(event, "attachment #{payload[:filename]} sent as it is: #{payload[:error]}") }
        end

        what = case payload[:outcome]
               when :kept then "kept as #{payload[:path]} (#{size(payload[:bytes])}#{shared(payload)})"
               when :already_kept then "already kept as #{payload[:path]}"
               when :other_owners then "sent as it is: another owner's file holds it"
               else 'sent as it is: the store cannot keep it'
               end
        debug { line(event, "attachment #{payload[:filename]} #{what}") }
      end

      def refused_write(event)
        payload = event.payload
        warn { line(event, "refused #{payload[:tool]} #{payload[:path]} (#{payload[:reason]}): #{payload[:message]}") }
      end

      private

      def line(event, text)
        "  FileStore #{text} (#{event.duration.round(1)}ms)"
      end

      def ending(payload)
        case payload[:outcome]
        when :exited then "exit code #{payload[:exit_code]}"
        when :signalled then "signal #{payload[:signal]}"
        when :timed_out then 'timed out'
        else "error: #{payload[:error]}"
        end
      end

      def shared(payload)
        payload[:shared_blob] ? ', its blob shared' : ''
      end

      def converted(payload)
        return 'no text' unless payload[:outcome] == :converted

        "#{size(payload[:bytes_out])} of text#{' (cached)' if payload[:cached]}"
      end

      def size(bytes)
        StoredFile.new(path: 'x', byte_size: bytes.to_i, content_type: nil).human_size
      end
    end
  end
end

RubyLLM::FileStore::LogSubscriber.attach_to :'file_store.ruby_llm'
