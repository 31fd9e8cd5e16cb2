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
  spec.required_ruby_version = '>= 3.1'

  spec.files = Dir['lib/**/*.rb', 'lib/generators/**/*.{tt,erb}',
                   'ext/ruby_llm_file_store/{extconf.rb,Cargo.toml,src/**/*.rs}', 'src/**/*.rs',
                   'Cargo.toml', 'Cargo.lock', 'README.md', 'LICENSE']
  spec.require_paths = ['lib']
  spec.extensions = ['ext/ruby_llm_file_store/extconf.rb']

  # 1.16 is the first release with Chat#preprocessed_messages and Tool.split_result,
  # the two points the chat integration hooks into.
  spec.add_dependency 'rb_sys', '~> 0.9'
  spec.add_dependency 'ruby_llm', '>= 1.16', '< 3'
  spec.metadata['rubygems_mfa_required'] = 'true'
end
