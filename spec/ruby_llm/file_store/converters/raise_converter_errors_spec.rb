# frozen_string_literal: true

require 'open3'
require 'rbconfig'

# Whether a converter that raises fails in front of the developer, decided by the
# environment of the Rails loaded: each case in a Ruby of its own, with Rails as the
# specs load it (the kit's 7.2 on RUBY_LLM_PATH, or Debian's 6.1).
RSpec.describe 'RubyLLM::FileStore.raise_converter_errors?', :slow do
  # Where Rails does not load here (Ruby 3.4 on Debian, whose native gems are built for
  # 3.3 only), say so rather than fail. Asked of a child, as the cases are.
  before do
    output, status = Open3.capture2e({ 'RUBYLIB' => $LOAD_PATH.join(':') }, RbConfig.ruby, '-e', 'require "rails"')
    skip "needs Rails: #{output.lines.first.to_s.strip}" unless status.success?
  end

  def answer(rails_env, script = 'print RubyLLM::FileStore.raise_converter_errors?')
    lib = File.expand_path('../../../../lib', __dir__)
    code = "require 'rails'\nrequire 'ruby_llm/file_store'\n#{script}"
    output, status = Open3.capture2e({ 'RAILS_ENV' => rails_env, 'RUBYLIB' => $LOAD_PATH.join(':') },
                                     RbConfig.ruby, '-I', lib, '-e', code)
    expect(status).to be_success, output
    output
  end

  it 'is on in development and test, off elsewhere' do
    expect(%w[development test production staging].to_h { |env| [env, answer(env)] })
      .to eq('development' => 'true', 'test' => 'true', 'production' => 'false', 'staging' => 'false')
  end

  it 'is what the app sets, whatever the environment' do
    expect(answer('development', "RubyLLM::FileStore.raise_converter_errors = false\n" \
                                 'print RubyLLM::FileStore.raise_converter_errors?')).to eq('false')
  end

  it 'raises the converter error out of the tool call in development, and tells the model in production' do
    script = <<~RUBY
      store = RubyLLM.file_store.memory
      store.write('a.broken', 'bytes', content_type: 'application/x-broken')
      config = Struct.new(:file_converters).new({ 'application/x-broken' => ->(_) { raise KeyError, 'no pages' } })
      begin
        print RubyLLM::FileStore::Tools::ReadFile.new(store, config:).call(path: 'a.broken')
      rescue KeyError => e
        print "raised \#{e.message}"
      end
    RUBY
    expect(answer('development', script)).to eq('raised no pages')
    expect(answer('production', script))
      .to eq('Error: a.broken could not be converted: its application/x-broken converter failed')
  end
end
