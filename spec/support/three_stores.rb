# frozen_string_literal: true

# The three stores the gem ships, each a context of its own: memory, folder, and
# Active Storage (SQLite, tagged :rails), for behaviour every store must share.
#
#   each_shipped_store { it('reads') { expect(store.text('a.md')).to eq('a') } }
module EachShippedStore
  STORES = {
    'a memory store' => [-> { RubyLLM.file_store.memory }, {}],
    'a folder store' => [-> { RubyLLM.file_store.directory(File.join(tmp_dir, 'store')) }, {}],
    'an Active Storage store' => [-> { RubyLLM.file_store.active_storage(Chat.create!(model_id: 'gpt-4.1-mini')) },
                                  { rails: true }]
  }.freeze

  def each_shipped_store(&block)
    STORES.each do |name, (build, tags)|
      context "in #{name}", **tags do
        include TmpDirHelper

        let(:store) { instance_exec(&build) }
        class_exec(&block)
      end
    end
  end
end

RSpec.configure { |config| config.extend EachShippedStore }
