# frozen_string_literal: true

# The chat integration reaches ruby_llm only through Seams, whose interface
# chat/seams/interface.rb states; each generation's seam file defines all of it.
RSpec.describe 'RubyLLM::FileStore::Seams', :ruby_llm do
  let(:chat) { File.expand_path('../../../../lib/ruby_llm/file_store/chat', __dir__) }

  it 'is defined whole by the seam file loaded for this ruby_llm' do
    expect(RubyLLM::FileStore::SEAMS_FILE).not_to eq('seams/none')
    expect(RubyLLM::FileStore::Seams.missing).to eq([])
  end

  it 'lists in its interface every Seams function the rest of the gem calls' do
    called = Dir[File.join(chat, '..', '**', '*.rb')].reject { |file| file.include?('/chat/seams/') }
                                                     .flat_map { |file| File.read(file).scan(/Seams\.([a-z_]+[?!]?)/) }
    expect(called.flatten.uniq.map(&:to_sym) - [:missing]).to all(satisfy { |name| RubyLLM::FileStore::Seams::INTERFACE.include?(name) })
    expect(RubyLLM::FileStore::Seams::INTERFACE).to all(satisfy { |name| called.flatten.include?(name.to_s) })
  end

  it 'refuses to load a seam file that leaves part of the interface out, naming it' do
    Dir.mktmpdir do |copy|
      FileUtils.cp_r(File.expand_path('../../../../lib', __dir__), copy)
      seam = File.join(copy, 'lib', 'ruby_llm', 'file_store', 'chat', "#{RubyLLM::FileStore::SEAMS_FILE}.rb")
      File.write(seam, File.read(seam).sub(/def mark_cache\(/, 'def marked_cache('))
      output, status = Open3.capture2e(RbConfig.ruby, *RubyLLMPath.ruby_options, '-I', File.join(copy, 'lib'), '-e',
                                       'require "ruby_llm"; require "ruby_llm/file_store"')
      expect(status).not_to be_success
      expect(output).to include("#{RubyLLM::FileStore::SEAMS_FILE}.rb does not define mark_cache " \
                                '(see chat/seams/interface.rb)')
    end
  end
end
