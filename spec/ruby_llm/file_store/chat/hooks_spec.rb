# frozen_string_literal: true

require 'fileutils'
require 'open3'
require 'rbconfig'

# A ruby_llm without the seams: a copy of the loaded ruby_llm, made here, whose Chat
# lacks add_tool_result_message, as releases before 1.16 lack the seams.
RSpec.describe 'Loading on a ruby_llm without the hooks', :ruby_llm do
  include TmpDirHelper

  def without_hook
    source = File.dirname($LOADED_FEATURES.find { |file| file.end_with?('/lib/ruby_llm.rb') })
    copy = File.join(tmp_dir, 'ruby_llm', 'lib')
    FileUtils.mkdir_p(File.dirname(copy))
    FileUtils.cp_r(source, copy)
    chat = File.join(copy, 'ruby_llm', 'chat.rb')
    File.write(chat, File.read(chat).gsub('def add_tool_result_message(', 'def add_old_tool_result_message('))
    copy
  end

  it 'loads the stores and tools, and refuses chats naming the versions that work' do
    libs = [without_hook, *$LOAD_PATH.grep(%r{/lib\z})].flat_map { |lib| ['-I', lib] }
    script = <<~RUBY
      require 'ruby_llm/file_store'
      RubyLLM.configure { |config| config.openai_api_key = 'test' }
      store = RubyLLM.file_store.memory
      store.write('a.md', 'kept')
      puts store.read('a.md')
      puts RubyLLM::FileStore::Tools::ReadFile.new(store).call(path: 'a.md')
      folder = RubyLLM.file_store.directory(ARGV.first)
      folder.write('notes/b.md', 'on disk')
      puts folder.list.map(&:path).inspect, File.read(File.join(ARGV.first, 'notes', 'b.md'))
      [-> { RubyLLM::Chat.new(model: 'gpt-4.1-mini').with_file_store },
       -> { Class.new(RubyLLM::Agent) { file_store } }].each do |refused|
        refused.call
      rescue RubyLLM::ConfigurationError => e
        puts e.message
      end
    RUBY
    output, status = Open3.capture2e(RbConfig.ruby, *libs, '-e', script, File.join(tmp_dir, 'folder'))
    expect(status).to be_success, output
    refusal = 'Chats with files need ruby_llm 1.16.0 or later (the 1.16 release or main): ruby_llm ' \
              "#{RubyLLM::VERSION} has no Chat#add_tool_result_message. The stores, converters and tools work on " \
              'their own.'
    expect(output.lines.map(&:chomp)).to eq(['kept', "     1\tkept", '["notes/b.md"]', 'on disk', refusal, refusal])
  end

  # Run once per ruby_llm set by bin/test-ruby-llm: each version tested is one the
  # gemspec lets RubyGems install, and the releases without the hooks are not.
  it 'has a gemspec whose ruby_llm requirement takes this ruby_llm and none before 1.16.0' do
    gemspec = Gem::Specification.load(File.expand_path('../../../../ruby_llm-file_store.gemspec', __dir__))
    requirement = gemspec.dependencies.find { |dependency| dependency.name == 'ruby_llm' }.requirement
    expect(requirement).to be_satisfied_by(Gem::Version.new(RubyLLM::VERSION))
    expect(requirement).not_to be_satisfied_by(Gem::Version.new('1.15.2'))
  end
end
