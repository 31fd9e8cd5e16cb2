# frozen_string_literal: true

require 'open3'
require 'rbconfig'

# The gem in a Ruby process of its own where ruby_llm cannot load (RubyGems off, only
# the gem's lib/ on the load path), as in an application that uses the stores alone.
RSpec.describe 'ChatTools without ruby_llm' do
  let(:lib) { File.expand_path('../../../../lib', __dir__) }

  def run_without_ruby_llm(script)
    Open3.capture2e({ 'RUBYLIB' => nil, 'RUBYOPT' => nil }, RbConfig.ruby, '--disable-gems', '-I', lib,
                    '-e', "require 'ruby_llm/file_store'\nputs defined?(RubyLLM::Chat).inspect\n#{script}")
  end

  it 'raises ConfigurationError saying ruby_llm is needed, and the plain Tools classes work' do
    output, status = run_without_ruby_llm(<<~RUBY)
      store = RubyLLM.file_store.memory
      store.write('a.md', 'kept')
      [-> { RubyLLM::FileStore::ChatTools.for(store) }, -> { RubyLLM::FileStore::ChatTools::ReadFile }].each do |call|
        call.call
      rescue RubyLLM::ConfigurationError => e
        puts e.message
      end
      puts RubyLLM::FileStore::Tools::ReadFile.new(store).call(path: 'a.md')
      begin
        RubyLLM::FileStore::ChatTools::Nothing
      rescue NameError => e
        puts e.class
      end
    RUBY
    expect(status).to be_success, output
    message = 'RubyLLM::FileStore::ChatTools needs ruby_llm, whose RubyLLM::Tool its tools are: ' \
              "require 'ruby_llm' before 'ruby_llm/file_store'. Without ruby_llm, call the plain classes under " \
              "RubyLLM::FileStore::Tools, e.g. Tools::ReadFile.new(store).call(path: 'a.md')."
    expect(output.lines.map(&:chomp)).to eq(['nil', message, message, "     1\tkept", 'NameError'])
  end
end
