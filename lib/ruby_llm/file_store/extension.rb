# frozen_string_literal: true

# A precompiled gem keeps one build per Ruby version in a folder named after it;
# a gem compiled on install, or a checkout built by bin/setup, keeps one at the
# plain path.
begin
  ruby_version = RUBY_VERSION[/\A\d+\.\d+/]
  require_relative "#{ruby_version}/file_store_native"
rescue LoadError
  begin
    require_relative 'file_store_native'
  rescue LoadError => e
    raise LoadError, "ruby_llm-file_store's native extension is not built (#{e.message}). " \
                     'Run bin/setup in a checkout, or reinstall the gem.'
  end
end
