# frozen_string_literal: true

module RubyLLM
  class FileStore
    # The tools as RubyLLM::Tool classes (see chat_tools.rb, which declares
    # ChatTools.for whether or not ruby_llm is loaded).
    module ChatTools
      # A RubyLLM::Tool that runs one of the plain Tools classes.
      class Base < RubyLLM::Tool
        # The tools page their own output; spilling it to a file would only hide it.
        spill_to_file false

        class << self
          # The plain Tools class this class runs.
          attr_reader :plain

          # Makes this class the RubyLLM::Tool of +plain+, a declared tool: its name,
          # description and parameters, and an execute taking the parameters as
          # keywords, the required ones without a default, which is what ruby_llm
          # checks the model's arguments against before the tool runs.
          def runs(plain)
            @plain = plain
            description plain.description
            plain.parameters.each { |parameter, options| Seams.declare_parameter(self, parameter, **options) }
            define_execute(plain.parameters)
          end

          # The name the model knows the tool by.
          def tool_name = plain.tool_name

          private

          # Defines, for read_file:
          #
          #   def execute(path:, offset: nil, limit: nil, unit: nil)
          #     run(path:, **{ offset:, limit:, unit: }.compact)
          #   end
          #
          # An optional argument left out (or null) is not passed, so the plain
          # tool's default applies.
          def define_execute(parameters)
            required, optional = keywords(parameters)
            signature = required.map { |name| "#{name}:" } + optional.map { |name| "#{name}: nil" }
            given = optional.map { |name| "#{name}:" }.join(', ')
            passed = required.map { |name| "#{name}:" } << "**{ #{given} }.compact"
            class_eval(<<~RUBY, __FILE__, __LINE__ + 1)
              def execute(#{signature.join(', ')})      # def execute(path:, offset: nil)
                run(#{passed.join(', ')})               #   run(path:, **{ offset: }.compact)
              end                                       # end
            RUBY
          end

          # The names of the required parameters and of the optional ones.
          def keywords(parameters)
            names = parameters.keys.map(&:to_s)
            bad = names.grep_v(/\A[a-z_][a-z0-9_]*\z/)
            raise ArgumentError, "#{plain} declares parameters that are not names: #{bad.join(', ')}" if bad.any?

            names.partition { |name| parameters[name.to_sym].fetch(:required, true) }
          end
        end

        # The store the tool works on.
        attr_reader :store

        # +subject+ is what the plain tool is made with: the store, or run_code's
        # CodeRunner; +options+ pass on to it (config:, on_write:, code:, reads:).
        def initialize(subject, **options)
          super()
          @subject = subject
          @tool = self.class.plain.new(subject, **options)
          @store = @tool.store
        end

        # The name the model knows the tool by.
        def name = self.class.tool_name

        # What the model reads about the tool, for what it was made with (run_code
        # says which of its two modes the chat's store gives).
        def description = self.class.plain.description(@subject)

        # The plain tool this one runs.
        def plain_tool = @tool # :nodoc:

        private

        def run(**arguments)
          result = @tool.call(**arguments)
          return result unless result.is_a?(Tools::Base::FileResult)

          Seams.file_result(result.text, result.attachment, code: @tool.code?)
        end
      end

      # A RubyLLM::Tool class for each declared tool, named as its plain class:
      # ChatTools::ListFiles runs Tools::ListFiles, ChatTools::RunCode Tools::RunCode.
      Tools.declared.each_value do |plain|
        const_set(plain.name.split('::').last, Class.new(Base) { runs plain })
      end
    end
  end
end
