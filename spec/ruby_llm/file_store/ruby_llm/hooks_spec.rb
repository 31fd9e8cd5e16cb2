# frozen_string_literal: true

require 'open3'
require 'rbconfig'

RSpec.describe 'Loading on a ruby_llm without the hooks', :ruby_llm do
  it 'fails at load, naming what is missing' do
    libs = $LOAD_PATH.grep(%r{/lib\z}).flat_map { |lib| ['-I', lib] }
    script = <<~RUBY
      require 'ruby_llm'
      RubyLLM::Chat.send(:remove_method, :preprocessed_messages)
      begin
        require 'ruby_llm/file_store'
      rescue LoadError => e
        puts e.message
      end
    RUBY
    output, status = Open3.capture2e(RbConfig.ruby, *libs, '-e', script)
    expect(status).to be_success
    expect(output.strip).to eq("ruby_llm-file_store needs ruby_llm 1.16 or later: ruby_llm #{RubyLLM::VERSION} " \
                               'has no Chat#preprocessed_messages, where chats with files hook in.')
  end
end
