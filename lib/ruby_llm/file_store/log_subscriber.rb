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
    #
    # A value the model or a user chose (a path, a file name, a pattern in an
    # error) that holds a control character or a line separator is shown inspected,
    # as Rails shows a request's parameters, so it can neither forge a line of the
    # log nor send a terminal an escape sequence:
    #
    #   FileStore read_file "a\nStarted GET \"/admin\"": error: ...
    class LogSubscriber < ::ActiveSupport::LogSubscriber
      # What no line shows as it is: control and format characters (newline, ESC,
      # a bidirectional override), and the line and paragraph separators.
      UNSAFE = /[\p{C}\p{Zl}\p{Zp}]/
      # The events whose lines are only ever debug lines: skipped cheaply where the
      # log's level is above debug (Rails 7.1 and later).
      if respond_to?(:subscribe_log_level, true)
        subscribe_log_level :tool, :debug
        subscribe_log_level :run_code, :debug
      end

      def tool(event)
        payload = event.payload
        ok = "ok, #{size(payload[:bytes_out])} out"
        result = payload[:outcome] == :error ? "error: #{shown(payload[:error])}" : ok
        debug { line(event, "#{shown(payload[:tool])}#{" #{shown(payload[:path])}" if payload[:path]}: #{result}") }
      end

      def convert(event)
        payload = event.payload
        about = "#{shown(payload[:path])} (#{shown(payload[:content_type])}, #{size(payload[:bytes_in])})"
        case payload[:outcome]
        when :failed then warn { line(event, "converter failed on #{about}: #{shown(payload[:error])}") }
        when :refused then warn { line(event, "converter refused #{about}: #{shown(payload[:error])}") }
        else debug { line(event, "converted #{about}: #{converted(payload)}") }
        end
      end

      def spill(event)
        payload = event.payload
        if payload[:outcome] == :failed
          warn do
            line(event, "kept a long #{shown(payload[:tool])} result whole (#{size(payload[:bytes_in])}): " \
                        "#{shown(payload[:error])}")
          end
        else
          debug do
            line(event, "spilled a #{shown(payload[:tool])} result to #{shown(payload[:path])}: " \
                        "#{size(payload[:bytes_in])}, " \
                        "#{size(payload[:bytes_out])} shown")
          end
        end
      end

      def run_code(event)
        payload = event.payload
        files = %i[created changed deleted].filter_map { |key| "#{payload[key]} #{key}" if payload[key].to_i.positive? }
        how = [payload[:sandbox] ? 'sandboxed' : 'unsandboxed', payload[:workspace] ? 'in the folder' : 'on copies']
        debug do
          line(event, "run_code #{shown(payload[:language])} (#{how.join(', ')}): " \
                      "#{[ending(payload), *files].join(', ')}")
        end
      end

      def attachment(event)
        payload = event.payload
        if %i[refused too_large].include?(payload[:outcome])
          about = "#{shown(payload[:filename])} sent as it is: #{shown(payload[:error])}"
          return warn { line(event, "attachment #{about}") }
        end

        what = case payload[:outcome]
               when :kept then "kept as #{shown(payload[:path])} (#{size(payload[:bytes])}#{shared(payload)})"
               when :already_kept then "already kept as #{shown(payload[:path])}"
               when :other_owners then "sent as it is: another owner's file holds it"
               else 'sent as it is: the store cannot keep it'
               end
        debug { line(event, "attachment #{shown(payload[:filename])} #{what}") }
      end

      def refused_write(event)
        payload = event.payload
        warn do
          line(event, "refused #{shown(payload[:tool])} #{shown(payload[:path])} (#{shown(payload[:reason])}): " \
                      "#{shown(payload[:message])}")
        end
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
        else "error: #{shown(payload[:error])}"
        end
      end

      # +value+ as a line shows it: as it is, or inspected where it holds what
      # UNSAFE names (see above), with what inspect leaves as it is (a bidirectional
      # override, NEL) escaped too.
      def shown(value)
        text = value.to_s
        return text if (text.ascii_only? || (text.encoding == Encoding::UTF_8 && text.valid_encoding?)) &&
                       !text.match?(UNSAFE)

        text.inspect.gsub(UNSAFE) do |char|
          char.ord > 0xFFFF ? format('\\u{%X}', char.ord) : format('\\u%04X', char.ord)
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
