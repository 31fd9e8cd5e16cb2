# frozen_string_literal: true

module RubyLLM
  class FileStore
    # The model's tools over a store: each a RubyLLM::Tool, which a chat offers the
    # model (ChatTools.for gives a chat its list) and an app or a test can call with
    # keywords, getting what the model reads. Every failure is a short message
    # starting "Error:", never an exception out of the chat.
    #
    #   tool = RubyLLM::FileStore::Tools::ReadFile.new(store)
    #   tool.call(path: "notes.md", offset: 10, limit: 20)
    #
    # Each tool is one class in its own file in tools/, declared there once
    # (Declaration#tool): its name, what the model reads about it, how a chat gets it,
    # and its +execute+. The chat's tools are gathered from those declarations, so a
    # new file there is a new tool.
    module Tools
      @declared = {}

      # The declaration of a tool, which its class makes once, in its own file under
      # tools/ (Base extends it), beside ruby_llm's own +description+ and the
      # parameters it declares with +argument+.
      module Declaration
        # How a chat gets a tool: every chat with a file store; only when the app
        # names it in <tt>with_file_store(extra_tools: [...])</tt>; from
        # with_code_execution.
        OFFERED = %i[by_default on_request with_code_execution].freeze
        # How long the model sees a result: always, or until the next question, after
        # which the request shows a line saying what it was (read_file's, which the
        # model reads again when it needs it).
        SHOWN = %i[always until_next_question].freeze

        # The name the model calls the tool by, or nil before #tool declares it.
        attr_reader :tool_name
        # How a chat gets the tool (OFFERED) and how long its result is shown (SHOWN).
        attr_reader :offered, :shown
        # Where a tool offered :by_default stands in the chat's list of tools.
        attr_reader :order

        # Declares the tool, once, in its own file under tools/: the +name+ the model
        # calls it by, how a chat gets it (+offered+, one of OFFERED, with +order+ for
        # :by_default) and how long its result is shown (+shown+). What the model
        # reads about it is ruby_llm's +description+ and the parameters #argument
        # declares; its work is +execute+, taking them as keywords.
        #
        #   class ListFiles < Base
        #     tool 'list_files', offered: :by_default, order: 1
        #     description "Lists this chat's files, one line each."
        #     argument :path, type: 'string', description: 'A folder.', required: false
        #
        #     def execute(path: nil) = ...
        #   end
        def tool(name, offered:, order: nil, shown: :always)
          check_declaration(name, offered, order, shown)
          @tool_name = name
          @offered = offered
          @order = order
          @shown = shown
          Tools.declare(self)
        end

        # Declares a parameter of the tool as the model reads it: its +type+,
        # +description+ and <tt>required: false</tt> when it may be left out. It is
        # ruby_llm's +parameter+ (+param+ on 1.16), which the seam of the ruby_llm
        # loaded calls.
        #
        #   argument :path, type: 'string', description: 'The file, like "notes.md".'
        def argument(name, **options)
          Seams.declare_parameter(self, name, **options)
          self
        end

        # Whether the request shows the tool's result only until the next question.
        def shown_until_next_question?
          shown == :until_next_question
        end

        private

        def check_declaration(name, offered, order, shown)
          raise ArgumentError, "#{self}: a tool's name is lower case words and _, not #{name.inspect}" unless
            name.is_a?(String) && name.match?(/\A[a-z][a-z0-9_]*\z/)
          raise ArgumentError, "#{self}: offered is one of #{OFFERED.join(', ')}" unless OFFERED.include?(offered)
          raise ArgumentError, "#{self}: shown is one of #{SHOWN.join(', ')}" unless SHOWN.include?(shown)
          raise ArgumentError, "#{self}: a tool offered by default needs its order" if
            offered == :by_default && !order.is_a?(Integer)
        end
      end

      class << self
        # Every tool declared, as { name => class }.
        def declared
          @declared.dup
        end

        # The tool classes a chat with a file store gets without asking, in order.
        def by_default
          @declared.values.select { |tool| tool.offered == :by_default }.sort_by(&:order)
        end

        # The tool classes named in +names+ (Symbols or Strings) that a chat gets when
        # the application asks for them. Raises ArgumentError for a name that is not one.
        #
        #   RubyLLM::FileStore::Tools.on_request([:glob_files]) # => [Tools::GlobFiles]
        def on_request(names)
          Array(names).map do |name|
            tool = @declared[name.to_s]
            next tool if tool&.offered == :on_request

            offered = @declared.values.select { |known| known.offered == :on_request }.map(&:tool_name)
            raise ArgumentError, "extra_tools: #{name.inspect} is not a tool a chat can ask for; there are " \
                                 "#{offered.join(', ')}"
          end.uniq
        end

        # Whether the request shows the result of the tool +name+ only until the next question.
        def shown_until_next_question?(name)
          @declared[name.to_s]&.shown_until_next_question? || false
        end

        def declare(tool) # :nodoc:
          raise ArgumentError, "two tools are named #{tool.tool_name}" if
            @declared.key?(tool.tool_name) && !@declared[tool.tool_name].equal?(tool)

          @declared[tool.tool_name] = tool
        end
      end
    end
  end
end

# base.rb and text_source.rb, which the tools build on, then every tool in tools/.
require_relative 'tools/events'
require_relative 'tools/frame'
require_relative 'tools/base'
require_relative 'tools/text_source'
Dir[File.join(__dir__, 'tools', '*.rb')].each { |file| require file }
