# frozen_string_literal: true

# A precompiled gem keeps one build per Ruby version in a folder named after it;
# a checkout built by bin/setup keeps one at the plain path; a gem compiled on
# install keeps it in its extensions folder, which RubyGems puts on the load path.
begin
  ruby_version = RUBY_VERSION[/\A\d+\.\d+/]
  require_relative "#{ruby_version}/file_store_native"
rescue LoadError
  begin
    require_relative 'file_store_native'
  rescue LoadError
    begin
      require 'ruby_llm/file_store/file_store_native'
    rescue LoadError => e
      raise LoadError, "ruby_llm-file_store's native extension is not built (#{e.message}). " \
                       'Run bin/setup in a checkout, or reinstall the gem.'
    end
  end
end

module RubyLLM
  class FileStore # :nodoc:
    # The content type the stores here give a file: from the name of +path+, else
    # from +head+, its first bytes (512 are enough). A store of your own calls it to
    # give the types the contract (ruby_llm/file_store/rspec) expects.
    #
    #   RubyLLM::FileStore.content_type("scan", "\x89PNG\r\n\x1a\n") # => "image/png"
    def self.content_type(path, head = '')
      Native.content_type(FileStore.path(path), head.to_s.b)
    end
  end
end
