# frozen_string_literal: true

require 'async'

# The stores inside Async tasks, as Falcon runs a request: the store contract in a
# reactor. Run by bin/test-async in the newer stack's root (Ruby 3.3 and 3.4, sid's
# ruby-async); stalls_check.rb and stops_check.rb hold the work that waits.
RSpec.describe 'the stores under Async' do
  include TmpDirHelper

  around { |example| Sync { example.run } }

  describe RubyLLM::FileStore::Memory do
    it_behaves_like 'a RubyLLM file store' do
      let(:store) { described_class.new }
    end
  end

  describe RubyLLM::FileStore::Directory do
    it_behaves_like 'a RubyLLM file store' do
      let(:store) { described_class.new(File.join(tmp_dir, 'store')) }
    end
  end
end
