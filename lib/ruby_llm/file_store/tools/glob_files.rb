# frozen_string_literal: true

module RubyLLM
  class FileStore
    module Tools
      # glob_files: the files whose paths match a glob, one line each, sorted by
      # path. Offered only when the application asks for it:
      #
      #   chat.with_file_store(store, extra_tools: [:glob_files])
      #
      # It matches the paths store.list returns, so it works on every store. * and ?
      # stay within a folder name, ** crosses folders ("reports/**" is everything
      # below reports), [a-z] is a set, {md,txt} each of its alternatives, and a
      # leading dot is matched like any character.
      class GlobFiles < Base
        # The most paths one result lists.
        MAX_PATHS = 1000
        # The longest pattern, in characters.
        MAX_PATTERN_CHARS = 1000
        # The most patterns the {a,b} alternatives of one pattern expand to.
        MAX_ALTERNATIVES = 100
        # The longest the matching may take, in seconds: a pattern of many ** over
        # deep paths costs its length times theirs for each file.
        MAX_SECONDS = 5
        FLAGS = File::FNM_PATHNAME | File::FNM_DOTMATCH

        tool 'glob_files', offered: :on_request
        description "Finds this chat's files whose paths match a glob, one line each: path (content type, size). " \
                    '* and ? match within a folder name, ** across folders, {md,txt} either, like "**/*.md" or ' \
                    '"reports/2024-*.{csv,xlsx}".'
        argument :pattern, type: 'string', description: 'A glob over the paths, like "**/*.md".'

        # The files whose paths match +pattern+.
        def execute(pattern:)
          pattern = check(pattern.to_s)
          globs = alternatives(pattern)
          files = matching(store.list, globs, pattern)
          return "No files match #{brief(pattern)}." if files.empty?

          lines = files.first(MAX_PATHS).map { |file| describe(file) }
          lines << "[#{files.size - MAX_PATHS} more files match. Narrow the pattern.]" if files.size > MAX_PATHS
          lines.join("\n")
        end

        private

        def matching(files, globs, pattern)
          deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + MAX_SECONDS
          files.select.with_index do |file, index|
            globs.any? do |glob|
              too_slow(pattern, index, files.size) if Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
              File.fnmatch?(glob, file.path, FLAGS)
            end
          end
        end

        def too_slow(pattern, done, total)
          raise ArgumentError, "matching #{brief(pattern)} took over #{MAX_SECONDS} seconds (#{done} of #{total} " \
                               'files): use a simpler pattern, with fewer ** and {}'
        end

        def check(pattern)
          raise ArgumentError, 'pattern is empty: give a glob such as "**/*.md"' if pattern.empty?
          raise ArgumentError, 'pattern is not valid UTF-8: give a glob of text' unless
            pattern.dup.force_encoding(Encoding::UTF_8).valid_encoding?
          raise ArgumentError, "pattern is #{pattern.length} characters, over the #{MAX_PATTERN_CHARS} a glob may be" if
            pattern.length > MAX_PATTERN_CHARS
          raise ArgumentError, "pattern #{brief(pattern)} has a control character" if pattern.match?(/[\x00-\x1f\x7f]/)

          if pattern.start_with?('/') || pattern.split('/').include?('..')
            raise ArgumentError, "pattern #{brief(pattern)} leaves the chat's files: paths are relative, " \
                                 'with no leading / and no .. parts'
          end

          pattern
        end

        # +pattern+ with each {a,b} group expanded: "*.{md,txt}" is ["*.md", "*.txt"].
        def alternatives(pattern)
          globs, rest = sequence(pattern, 0, pattern, nested: false)
          raise ArgumentError, "pattern #{brief(pattern)} has a } without its {" if rest < pattern.length

          # A last ** is everything below, as "reports/**" reads; fnmatch takes it for *.
          globs.map { |glob| glob == '**' || glob.end_with?('/**') ? "#{glob}/*" : glob }
        end

        # The alternatives of +pattern+ from +at+ up to a , or } of the group it is
        # in (+nested+), and where it stopped.
        def sequence(pattern, at, whole, nested:)
          globs = ['']
          while at < pattern.length && !ends_sequence?(pattern[at], nested)
            if pattern[at] == '{'
              group, at = group(pattern, at + 1, whole)
              globs = combine(globs, group, whole)
            else
              # A backslash escapes the next character, for fnmatch to read.
              piece = pattern[at] == '\\' ? pattern[at, 2] : pattern[at]
              globs.map! { |glob| glob + piece }
              at += piece.length
            end
          end
          [globs, at]
        end

        def ends_sequence?(char, nested)
          char == '}' || (nested && char == ',')
        end

        # The alternatives of the group whose { is just before +at+, and where it ends.
        def group(pattern, at, whole)
          options = []
          loop do
            globs, at = sequence(pattern, at, whole, nested: true)
            options.concat(globs)
            limit(options.size, whole)
            raise ArgumentError, "pattern #{brief(whole)} has a { without its }" if at >= pattern.length

            at += 1
            return [options, at] if pattern[at - 1] == '}'
          end
        end

        def combine(globs, group, whole)
          limit(globs.size * group.size, whole)
          globs.product(group).map(&:join)
        end

        def limit(count, whole)
          return if count <= MAX_ALTERNATIVES

          raise ArgumentError, "pattern #{brief(whole)} has over #{MAX_ALTERNATIVES} alternatives in its {}: " \
                               'use fewer, or several searches'
        end
      end
    end
  end
end
