# frozen_string_literal: true

module RubyLLM
  class FileStore
    # The five tools as RubyLLM::Tool classes (see chat_tools.rb beside this folder,
    # which declares ChatTools.for whether or not ruby_llm is loaded).
    module ChatTools
      # A RubyLLM::Tool that runs one of the plain Tools classes.
      class Base < RubyLLM::Tool
        # The tools page their own output; spilling it to a file would only hide it.
        spill_to_file false

        class << self
          attr_reader :plain, :tool_name

          # Declares the plain tool this class runs, its name and its parameters.
          def runs(plain, name)
            @plain = plain
            @tool_name = name
            description plain.description
            plain.parameters.each { |parameter, options| Seams.declare_parameter(self, parameter, **options) }
          end
        end

        # The store the tool works on.
        attr_reader :store

        # The name the model knows the tool by.
        def name = self.class.tool_name

        def initialize(store, config: nil, on_write: nil, code: nil, reads: nil)
          super()
          @store = store
          @tool = self.class.plain.new(store, config:, on_write:, code:, reads:)
        end

        private

        def run(**arguments)
          result = @tool.call(**arguments)
          return result unless result.is_a?(Tools::Base::FileResult)

          Seams.file_result(result.text, result.attachment, code: @tool.code?)
        end
      end

      # list_files
      class ListFiles < Base
        runs Tools::ListFiles, 'list_files'

        def execute(path: nil) = run(path:)
      end

      # read_file
      class ReadFile < Base
        runs Tools::ReadFile, 'read_file'

        def execute(path:, offset: nil, limit: nil, unit: nil) = run(path:, offset:, limit:, unit:)
      end

      # search_files
      class SearchFiles < Base
        runs Tools::SearchFiles, 'search_files'

        def execute(pattern:, path: nil, literal: false, ignore_case: false, context: 0)
          run(pattern:, path:, literal:, ignore_case:, context:)
        end
      end

      # write_file
      class WriteFile < Base
        runs Tools::WriteFile, 'write_file'

        def execute(path:, content:) = run(path:, content:)
      end

      # edit_file
      class EditFile < Base
        runs Tools::EditFile, 'edit_file'

        def execute(path:, old_text:, new_text:, replace_all: false) = run(path:, old_text:, new_text:, replace_all:)
      end
    end
  end
end
