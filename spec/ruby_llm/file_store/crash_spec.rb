# frozen_string_literal: true

# A writing process killed at a random moment leaves the file whole (old or new)
# and, once the leftovers of dead writers are swept, nothing else in the folder.
RSpec.describe 'Writes killed at random', :large, :native do
  include TmpDirHelper

  let(:root) { File.join(tmp_dir, 'store') }
  let(:store) { RubyLLM::FileStore::Directory.new(root) }
  let(:size) { 4 * 1024 * 1024 }

  def writer_child
    fork do
      child = RubyLLM::FileStore::Directory.new(root)
      loop.with_index do |_, i|
        content = (%w[a b c][i % 3] * size)
        i.even? ? child.write('doc.bin', content) : child.write('doc.bin', StringIO.new(content))
      end
    end
  end

  it 'keeps every file whole through 25 SIGKILLs, and sweeps what the writers left' do
    store.write('doc.bin', 'z' * size)
    random = Random.new(RSpec.configuration.seed)
    25.times do
      pid = writer_child
      sleep random.rand(0.005..0.08)
      Process.kill(:KILL, pid)
      Process.wait(pid)
      content = store.read('doc.bin')
      expect(content.bytesize).to eq(size)
      expect(content.squeeze.size).to eq(1)
    end
    leftovers = Dir.children(root) - ['doc.bin']
    expect(leftovers).to all(match(/\A\.doc\.bin\.\d+-\h+-\d+\.tmp\z/))
    expect(RubyLLM::FileStore::Native::Directory.open(root).sweep_leftovers(0)).to eq(leftovers.size)
    expect(Dir.children(root)).to eq(['doc.bin'])
  end
end
