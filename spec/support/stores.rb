# frozen_string_literal: true

# Runs the examples of a block once with a Memory store and once with a Directory
# store, each fresh for every example.
module EachStore
  def each_store(&block)
    { 'on a Memory store' => -> { RubyLLM.file_store.memory },
      'on a Directory store' => -> { RubyLLM.file_store.directory(File.join(tmp_dir, 'store')) } }
      .each do |name, build|
      context name do
        include TmpDirHelper

        let(:store) { instance_exec(&build) }
        class_exec(&block)
      end
    end
  end
end

RSpec.configure { |config| config.extend EachStore }
