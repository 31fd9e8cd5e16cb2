# frozen_string_literal: true

require 'open3'
require 'rbconfig'

# In a fresh Ruby, since this one has Active Record and Active Storage loaded.
RSpec.describe 'RubyLLM.file_store.active_storage without Rails' do
  def run_ruby(code)
    lib = File.expand_path('../../../../lib', __dir__)
    output, status = Open3.capture2e(RbConfig.ruby, '-I', lib, '-e', code)
    expect(status).to be_success, output
    output
  end

  it 'raises ConfigurationError saying Active Record is missing' do
    output = run_ruby(<<~RUBY)
      require "ruby_llm/file_store"
      begin
        RubyLLM.file_store.active_storage(Object.new)
      rescue RubyLLM::ConfigurationError => e
        print e.message
      end
    RUBY
    expect(output).to eq('RubyLLM.file_store.active_storage needs Active Record and Active Storage: ' \
                         'Active Record is not loaded (require "active_record")')
  end

  it 'raises ConfigurationError saying Active Storage is missing, also for the model' do
    output = run_ruby(<<~RUBY)
      require "active_record"
      require "ruby_llm/file_store"
      [-> { RubyLLM.file_store.active_storage(Object.new) }, -> { RubyLLM::ActiveRecord::ChatFile }].each do |call|
        call.call
      rescue RubyLLM::ConfigurationError => e
        puts e.message
      end
    RUBY
    expect(output.lines.map(&:chomp)).to eq(
      ['RubyLLM.file_store.active_storage needs Active Record and Active Storage: Active Storage is not loaded ' \
       '(require "active_storage/engine" in config/application.rb, then run bin/rails active_storage:install)',
       'RubyLLM::ActiveRecord::ChatFile needs Active Record and Active Storage: Active Storage is not loaded ' \
       '(require "active_storage/engine" in config/application.rb, then run bin/rails active_storage:install)']
    )
  end
end
