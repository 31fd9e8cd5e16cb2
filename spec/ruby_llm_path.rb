# frozen_string_literal: true

# Where the specs' ruby_llm comes from, which the gem requires: the sets
# RUBY_LLM_PATH names (folders joined with :, each holding gems with one lib/ each:
# ruby_llm and its runtime dependencies, or Rails), else, or when they hold Rails
# alone, the gem kit's ruby_llm-main beside the checkout (../shared/gems), else the
# installed gem. spec_helper.rb and spec/readme/runner.rb put them on the load path.
module RubyLLMPath
  KIT = File.expand_path('../../shared/gems/ruby_llm-main', __dir__)

  module_function

  # The sets named, in order.
  def named
    ENV.fetch('RUBY_LLM_PATH', '').split(':').reject(&:empty?)
  end

  # Whether RUBY_LLM_PATH names a set of ruby_llm, as bin/test-ruby-llm does for
  # each release: the examples that plug into ruby_llm's chats run then.
  def ruby_llm_named?
    named.any? { |set| Dir[File.join(set, '*', 'lib', 'ruby_llm.rb')].any? }
  end

  # The sets the load path gets: those named, and the kit's ruby_llm-main where they
  # hold no ruby_llm.
  def sets
    ruby_llm_named? || !File.directory?(KIT) ? named : named + [KIT]
  end

  # Every gem's lib/ of the sets, first set first.
  def libs
    sets.flat_map { |set| Dir[File.join(set, '*', 'lib')] }
  end

  # Puts libs at the front of the load path, and of RUBYLIB, so that a Ruby process a
  # spec starts finds the same ruby_llm.
  def load!
    libs.reverse_each { |lib| $LOAD_PATH.unshift(lib) }
    ENV['RUBYLIB'] = [*libs, *ENV.fetch('RUBYLIB', '').split(':').reject(&:empty?)].uniq.join(':')
  end

  # The same as options for a Ruby process of its own started without this environment.
  def ruby_options
    libs.flat_map { |lib| ['-I', lib] }
  end
end
