# frozen_string_literal: true

module RubyLLM
  class FileStore
    module Tools
      # The events of a tool (see Instrumentation): one <tt>tool.file_store.ruby_llm</tt>
      # a call, and <tt>refused_write.file_store.ruby_llm</tt> for a write it refuses.
      # Included in Base, whose +chat+, +store+ and +config+ it reads.
      module Events
        private

        # Runs the block, which returns [what the model gets, the error or nil],
        # inside the call's event, and returns what the model gets.
        def instrumented(arguments)
          # Unheard, the event is skipped before its payload is built: most calls.
          return yield.first unless Instrumentation.listened?(Instrumentation::NAMES[:tool], config)

          payload = event_payload(path: arguments[:path], tool: self.class.tool_name, bytes_in: bytes_in(arguments))
          Instrumentation.instrument(:tool, payload, config:) do |event|
            result, failure = yield
            event.merge!(outcome: failure ? :error : :ok, bytes_out: bytes_out(result))
            event[:error] = failure if failure
            result
          end
        end

        # What every event of this tool names: its chat and store, and +fields+.
        def event_payload(**fields)
          { chat:, store:, **fields }
        end

        # The bytes of the text the model passed besides the path (write_file's
        # content, edit_file's texts, run_code's code).
        def bytes_in(arguments)
          arguments.sum { |name, value| name != :path && value.is_a?(String) ? value.bytesize : 0 }
        end

        def bytes_out(result)
          text = result.is_a?(Frame::FileResult) ? result.text : result
          text.is_a?(String) ? text.bytesize : 0
        end

        # Refuses a write to a store that writes nothing (a chat whose declared
        # owner is missing: RailsStore::Ownerless), before the tool reads a byte.
        def check_writable(path)
          refusal = store.respond_to?(:write_refusal) && store.write_refusal
          refuse(path, :no_owner, refusal) if refusal
        end

        # Refuses to change +file+ unless the store writes and the model read it as it is.
        def check_changeable(file)
          check_writable(file.path)
          check_read(file)
        end

        # Raises ArgumentError with +message+ for the model, after a
        # <tt>refused_write.file_store.ruby_llm</tt> event saying why (+reason+).
        def refuse(path, reason, message, bytes: nil)
          Instrumentation.instrument(:refused_write, event_payload(path:, tool: self.class.tool_name, reason:,
                                                                   message:, bytes:), config:)
          raise ArgumentError, message
        end
      end
    end
  end
end
