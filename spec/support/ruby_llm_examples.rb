# frozen_string_literal: true

# The one line a plain run prints about the examples that plug into ruby_llm's chats,
# which it leaves out, and where they run instead.
module RubyLLMExamples
  KIT = File.expand_path('../../../shared/gems', __dir__)

  module_function

  def report_left_out
    count = RSpec.world.example_groups.flat_map(&:descendants).flat_map(&:examples)
                 .count { |example| example.metadata[:ruby_llm] }
    return if count.zero?

    puts "Left out #{count} examples that need ruby_llm (tagged :ruby_llm): #{where_they_run}"
  end

  def where_they_run
    if Dir[File.join(KIT, 'ruby_llm-*')].any?
      "bin/test-ruby-llm runs them once per set in #{KIT}."
    else
      "skipped on this machine, which has no ruby_llm sets in #{KIT} (bin/test-ruby-llm runs them where it does)."
    end
  end
end
