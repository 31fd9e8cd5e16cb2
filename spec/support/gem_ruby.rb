# frozen_string_literal: true

require 'open3'

# A Ruby process of its own with the gem loaded, for what holds once per process: its
# convert supervisor and workers, its pool, what fork does to them.
module GemRuby
  LIB = File.expand_path('../../lib', __dir__)

  # Runs +script+ (in +prefix+, a command such as unshare, when given): its output,
  # or "hung" when it was still running after +seconds+ (then it is killed).
  def ruby(script, seconds: 120, prefix: [])
    code = "$LOAD_PATH.unshift(#{LIB.inspect})\nrequire 'ruby_llm/file_store'\nrequire 'timeout'\n#{script}"
    Open3.popen2e(*prefix, RbConfig.ruby, *RubyLLMPath.ruby_options, '-e', code, pgroup: true) do |_, out, waiter|
      unless waiter.join(seconds)
        Process.kill(:KILL, -waiter.pid)
        return 'hung'
      end
      out.read
    end
  end
end
