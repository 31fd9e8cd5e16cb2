# frozen_string_literal: true

require 'rbconfig'

# A precompiled gem keeps one build per Ruby version in a folder named after it;
# a checkout built by bin/setup keeps one at the plain path; a gem compiled on
# install keeps it in its extensions folder, which RubyGems puts on the load path.
# A precompiled build that is there but does not load (a glibc older than it needs,
# or musl) is reported as such, and so is one for other Ruby versions only, each with
# the way to the source gem.
#
# Every document is converted in the convert worker, an executable that each of these
# installs beside the library (a precompiled gem once, in the folder above its Ruby
# version folders); the library is told where it is once loaded.
module RubyLLM
  class FileStore
    module Extension # :nodoc:
      SOURCE_GEM = 'install the source gem instead: gem install ruby_llm-file_store --platform ruby, or in a ' \
                   'Gemfile: bundle config set force_ruby_platform true'

      def self.load
        ruby_version = RUBY_VERSION[/\A\d+\.\d+/]
        precompiled = File.join(__dir__, ruby_version, "file_store_native.#{RbConfig::CONFIG['DLEXT']}")
        return require(precompiled) if File.exist?(precompiled)

        begin
          require_relative 'file_store_native'
        rescue LoadError
          require 'ruby_llm/file_store/file_store_native'
        end
      rescue LoadError => e
        raise LoadError, message(e, precompiled)
      end

      WORKER = 'file_store_convert'

      # The convert worker beside the library loaded, or in the folder above it (a
      # precompiled gem's); where there is none, the path it was looked for at, which a
      # conversion's error then names.
      def self.worker_path
        library = $LOADED_FEATURES.reverse.find { |path| File.basename(path).start_with?('file_store_native.') }
        return File.join(__dir__, WORKER) unless library

        candidates = [File.dirname(library), File.dirname(library, 2)].map { |dir| File.join(dir, WORKER) }
        candidates.find { |path| File.executable?(path) } || candidates.first
      end

      def self.message(error, precompiled)
        if File.exist?(precompiled)
          return "ruby_llm-file_store's precompiled library does not load on this machine " \
                 "(#{error.message}); #{SOURCE_GEM}"
        end

        built_for = Dir[File.join(__dir__, '[0-9]*.[0-9]*')].map { |dir| File.basename(dir) }.sort
        unless built_for.empty?
          return "ruby_llm-file_store's precompiled gem holds builds for Ruby #{built_for.join(', ')}, not " \
                 "#{RUBY_VERSION}; #{SOURCE_GEM}"
        end

        "ruby_llm-file_store's native extension is not built (#{error.message}). " \
          'Run bin/setup in a checkout, or reinstall the gem.'
      end
    end
  end
end

RubyLLM::FileStore::Extension.load
RubyLLM::FileStore::Native.converter_program = RubyLLM::FileStore::Extension.worker_path

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
