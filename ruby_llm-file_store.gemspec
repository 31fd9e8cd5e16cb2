# frozen_string_literal: true

require_relative 'lib/ruby_llm/file_store/version'

Gem::Specification.new do |spec|
  spec.name = 'ruby_llm-file_store'
  spec.version = RubyLLM::FileStore::VERSION
  spec.authors = ['The ruby_llm-file_store authors']
  spec.summary = 'Files a RubyLLM chat keeps out of the conversation and reads on demand'
  spec.description = 'Attachments and long tool results become files in a store (memory, a folder, or ' \
                     'Active Storage); the model sees one line about each and reads, searches, writes and ' \
                     'edits them with five tools. A Rust core does the work on paths, files and text.'
  spec.license = 'MIT'
  spec.homepage = 'https://github.com/ruby-llm-file-store/ruby_llm-file_store'
  spec.required_ruby_version = '>= 3.1'

  # The source gem: the Rust sources without their unit tests (tests.rs and
  # <module>_tests.rs, compiled only under cfg(test)), compiled on install by extconf.rb: the library and the convert
  # worker beside it. The Rakefile's `native` task
  # makes the precompiled platform gem from this one: no ext/, no Rust, a library per
  # Ruby version in lib/ruby_llm/file_store/<minor>/ and the convert worker beside them.
  spec.files = Dir['lib/**/*.rb', 'lib/**/*.rake', 'lib/generators/**/*.{tt,erb}',
                   'ext/ruby_llm_file_store/{*.rb,Cargo.toml,src/**/*.rs}',
                   'crates/*/{Cargo.toml,src/**/*.rs}',
                   'Cargo.toml', 'Cargo.lock', 'README.md', 'CHANGELOG.md', 'LICENSE']
               .reject { |path| path.end_with?('/tests.rs', '_tests.rs') }
  spec.require_paths = ['lib']
  spec.extensions = ['ext/ruby_llm_file_store/extconf.rb']

  # extconf.rb drives cargo itself, so rb_sys is not needed (the Gemfile names it for
  # development). The tools are RubyLLM::Tool classes, and the chat integration hooks
  # into ruby_llm 1.16.0 and main, the 2.0 work, both tested.
  spec.add_dependency 'ruby_llm', '>= 1.16.0', '< 2.1'
  spec.metadata = {
    'homepage_uri' => spec.homepage,
    'source_code_uri' => spec.homepage,
    'changelog_uri' => "#{spec.homepage}/blob/main/CHANGELOG.md",
    'bug_tracker_uri' => "#{spec.homepage}/issues",
    'rubygems_mfa_required' => 'true'
  }
end
