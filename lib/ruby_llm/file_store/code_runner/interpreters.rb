# frozen_string_literal: true

require 'rbconfig'
require 'open3'

module RubyLLM
  class FileStore
    class CodeRunner
      # Finds the interpreter each language runs with, and the folders outside the
      # system ones the sandbox must show it (a Python under pyenv or a virtualenv).
      class Interpreters # :nodoc:
        SYSTEM = %w[/usr/ /bin/ /lib/ /sbin/].freeze

        def initialize
          @found = {}
        end

        # [interpreter, read-only folders] for +language+.
        def for(language, sandbox:)
          @found[[language, sandbox]] ||= find(language, sandbox)
        end

        private

        def find(language, sandbox)
          case language
          when 'python' then python(sandbox)
          when 'ruby' then [RbConfig.ruby, outside_system([RbConfig::CONFIG['prefix']])]
          else ['sh', []]
          end
        end

        # The Python on PATH, asked where it really is: a pyenv shim is a script that
        # needs the shell's setup, so the sandbox runs the interpreter behind it.
        def python(sandbox)
          out, status = Open3.capture2('python3', '-c', 'import sys; print(sys.executable); ' \
                                                        'print(sys.prefix); print(sys.base_prefix)')
          return ['python3', []] unless status.success?

          executable, *prefixes = out.lines.map(&:strip)
          [executable, sandbox ? outside_system(prefixes) : []]
        rescue SystemCallError
          ['python3', []]
        end

        def outside_system(folders)
          folders.compact.uniq.reject { |folder| SYSTEM.any? { |system| "#{folder}/".start_with?(system) } }
                 .select { |folder| File.directory?(folder) }
        end
      end
    end
  end
end
