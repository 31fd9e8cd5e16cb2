# frozen_string_literal: true

module RubyLLM
  class FileStore
    class CodeRunner
      # How a run's own text is shown in its result, so that nothing the code
      # prints or names can pass for the sandbox's words: control and format
      # characters (ESC, NUL, a right-to-left override, a line separator) are
      # shown escaped, and a file name is quoted, with its quotes, backslashes and
      # line breaks escaped too, and cut when long.
      module Shown # :nodoc:
        # Characters of output shown escaped: every control or format character
        # and the Unicode line and paragraph separators, but the line break and tab.
        UNSEEN = /[[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]&&[^\n\t]]/
        # Characters of a name shown escaped: those, the line break and tab, and
        # the quote and backslash that would end or fake the quoting.
        UNSEEN_IN_NAME = /["\\\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/
        # Characters of a name shown before it is cut.
        NAME_SHOWN = 80
        NAMED = { "\n" => '\n', "\t" => '\t', '"' => '\"', '\\' => '\\\\' }.freeze

        module_function

        # +text+ with its unseen characters escaped (+\x1B+, +\u{202E}+).
        def escape(text)
          text.to_s.scrub.gsub(UNSEEN) { |char| code(char) }
        end

        # +name+ quoted and escaped; past NAME_SHOWN characters, its start and end
        # only, saying how long it is.
        def quote(name)
          name = name.to_s.scrub
          half = NAME_SHOWN / 2
          shown = name.length > NAME_SHOWN ? "#{name[0, half]}…#{name[-half..]}" : name
          quoted = "\"#{shown.gsub(UNSEEN_IN_NAME) { |char| NAMED.fetch(char) { code(char) } }}\""
          name.length > NAME_SHOWN ? "#{quoted} (#{name.length} characters)" : quoted
        end

        def code(char)
          char.ord < 0x80 ? format('\x%02X', char.ord) : format('\u{%X}', char.ord)
        end
      end
    end
  end
end
