# frozen_string_literal: true

require 'open3'
require 'rbconfig'

# Digest defines Digest::SHA256 on its first use, through const_missing, and that is
# not thread-safe: two threads of a fresh Puma worker hashing at once can raise
# "Digest::Base cannot be directly inherited in Ruby". The gem loads the class itself.
RSpec.describe 'Loading ruby_llm/file_store' do
  it 'defines Digest::SHA256 before any thread hashes' do
    lib = File.expand_path('../../../lib', __dir__)
    output, status = Open3.capture2e({ 'RUBYLIB' => nil, 'RUBYOPT' => nil }, RbConfig.ruby, *RubyLLMPath.ruby_options,
                                     '-I', lib, '-e', "require 'ruby_llm/file_store'\np Digest.const_defined?(:SHA256, false)")
    expect(status).to be_success, output
    expect(output.lines.last.chomp).to eq('true')
  end
end
