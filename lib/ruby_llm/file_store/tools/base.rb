# frozen_string_literal: true

module RubyLLM
  class FileStore
    module Tools
      # What every tool is: a RubyLLM::Tool over a store, with the configuration its
      # converters come from, each failure turned into a message for the model
      # (Frame) and each call an event (Events). A tool subclasses it in its own file,
      # declares itself (Declaration#tool, +description+, Declaration#argument) and
      # does its work in +execute+.
      class Base < RubyLLM::Tool
        extend Declaration
        include Frame
        include Events

        # The tools page their own output; spilling it to a file would only hide it.
        spill_to_file false

        attr_reader :store, :config, :chat

        # +on_write+ receives each StoredFile the tool writes; +code+, when given,
        # answers whether the model can run code (run_code) beside this tool.
        # +reads+ is the record of what the model read that this tool shares with
        # the other tools of its chat (ChatTools.for gives each chat one); without
        # it the tool uses the store's record for the current thread. +chat+, the
        # RubyLLM::Chat the tool serves, is named in the events it emits.
        #
        #   reads = RubyLLM::FileStore::Reads.new
        #   Tools::ReadFile.new(store, reads:).call(path: "plan.md")
        #   Tools::WriteFile.new(store, reads:).call(path: "plan.md", content: "v2")
        def initialize(store, config: nil, on_write: nil, code: nil, reads: nil, chat: nil)
          super()
          @store = store
          @chat = chat
          @config = config
          @on_write = on_write
          @code = code
          @reads = reads
        end

        # The name the model knows the tool by (ruby_llm 1.16 would make one of the
        # class's name).
        def name = self.class.tool_name

        # What the model read, as this tool's chat (or thread) saw it.
        def reads
          @reads || store.reads
        end

        # Runs the tool with the model's arguments as keywords, as an app or a test
        # does, and returns what the model reads (a Frame::FileResult for a file it
        # should see as itself); a failure is returned as a short message starting
        # "Error:". No result passes the ceiling of Native::MAX_RESULT_CHARS
        # characters; a longer one is cut, with a note. Each call is a
        # <tt>tool.file_store.ruby_llm</tt> event.
        #
        #   Tools::ReadFile.new(store).call(path: "notes.md", offset: 10)
        #
        # A chat passes the arguments as one Hash, as the model sent them:
        # RubyLLM::Tool#call checks them against +execute+'s keywords before it runs
        # it, and a file comes back as the seam of the ruby_llm loaded shows one.
        def call(*arguments, **keywords)
          return instrumented(keywords) { attempt { execute(**keywords) } } if arguments.empty?

          result = instrumented(normalize_args(arguments.first)) { attempt { super } }
          result.is_a?(FileResult) ? Seams.file_result(result.text, result.attachment, code: code?) : result
        end

        # Whether the model can run code, so a message may point it at run_code.
        def code?
          @code ? @code.call == true : false
        end

        private

        # The store path of +path+, or nil for the whole store ("", ".", "/").
        def scope(path)
          path = path.to_s.strip
          return if path.empty? || %w[. ./ /].include?(path)

          FileStore.path(path)
        end

        def describe(file)
          "#{file.path} (#{file.content_type}, #{file.human_size})"
        end

        def refuse_large(path, bytesize, now: false)
          return if bytesize <= store.max_file_size

          refuse(path, :too_large, "#{path} #{now ? 'is' : 'would be'} #{human(bytesize)}, over this store's " \
                                   "limit of #{human(store.max_file_size)} a file. Write it as several smaller files.",
                 bytes: bytesize)
        end

        def human(bytes)
          StoredFile.new(path: 'x', byte_size: bytes, content_type: nil).human_size
        end

        def wrote(file)
          reads.remember(file)
          @on_write&.call(file)
          file
        end

        def check_read(file)
          refusal = reads.refusal(file)
          refuse(file.path, :unread, refusal) if refusal
        end
      end
    end
  end
end
