# frozen_string_literal: true

require 'open3'
require 'rbconfig'

# The sweep of what crashed writes leave removes only temporary files a writer of
# this store made (marked with an extended attribute) and no writer holds (each
# writer flocks its file for the whole write): never a user's file, never a live
# writer's in another PID namespace, never anything in a hidden folder or through a
# link.
RSpec.describe 'Sweeping the leftovers of crashed writes', :native do
  include TmpDirHelper

  let(:root) { File.join(tmp_dir, 'store') }
  let(:native) { RubyLLM::FileStore::Native::Directory.open(root) }
  let(:week_ago) { Time.now - (8 * 24 * 3600) }
  let(:lib) { File.expand_path('../../../lib', __dir__) }

  # A writer of +path+ under +folder+ that dies mid-write, as a crashed process does:
  # its temporary file stays, marked, and locked by no one. Returns that file.
  def crashed_write(folder, path)
    before = Dir.glob(File.join(folder, '**', '.*.tmp'), File::FNM_DOTMATCH)
    pid = fork do
      writer = RubyLLM::FileStore::Native::Directory.open(folder).writer(path, nil)
      writer.write('part of it')
      exit!(0)
    end
    Process.wait(pid)
    left = Dir.glob(File.join(folder, '**', '.*.tmp'), File::FNM_DOTMATCH) - before
    expect(left.size).to eq(1)
    File.utime(week_ago, week_ago, left.first)
    left.first
  end

  def temporary_files
    Dir.glob(File.join(root, '**', '.*.tmp'), File::FNM_DOTMATCH)
  end

  it "removes a crashed writer's file and keeps a user's file of the same shape" do
    RubyLLM.file_store.directory(root).write('notes/a.txt', 'whole')
    crashed = crashed_write(root, 'notes/a.txt')
    look_alike = File.join(root, 'notes', '.a.txt.1-1f-0.tmp')
    File.write(look_alike, 'a file of mine')
    File.utime(week_ago, week_ago, look_alike)
    expect(native.sweep_leftovers(0)).to eq(1)
    expect(File.exist?(crashed)).to be(false)
    expect(File.read(look_alike)).to eq('a file of mine')
    expect(File.read(File.join(root, 'notes', 'a.txt'))).to eq('whole')
  end

  it 'keeps what a crashed writer left in a hidden folder or in a folder reached through a link' do
    outside = File.join(tmp_dir, 'outside')
    FileUtils.mkdir_p([root, outside])
    FileUtils.mkdir_p(File.join(root, '.cache'))
    crashed = crashed_write(outside, 'c.txt')
    hidden = File.join(root, '.cache', File.basename(crashed))
    File.rename(crashed, hidden)
    # Last: each writer's process sweeps the folder it opens, as any store does.
    through_link = crashed_write(outside, 'b.txt')
    File.symlink(outside, File.join(root, 'linked'))
    expect(native.sweep_leftovers(0)).to eq(0)
    expect([File.exist?(through_link), File.exist?(hidden)]).to eq([true, true])
  end

  # A process in a PID namespace of its own, as in a container sharing the volume:
  # its PID means nothing here, yet its file is its own while it runs.
  it 'keeps the file of a live writer in another PID namespace, idle past any sweep age' do
    skip 'needs unshare with user and PID namespaces' unless system('unshare --user --map-root-user --pid --fork true',
                                                                    %i[out err] => File::NULL)
    script = <<~'RUBY'
      require 'ruby_llm/file_store'
      writer = RubyLLM::FileStore::Native::Directory.open(ARGV[0]).writer('doc.txt', nil)
      writer.write('new content')
      puts "ready #{Process.pid}"
      $stdout.flush
      $stdin.gets
      puts writer.commit.size
    RUBY
    RubyLLM.file_store.directory(root).write('doc.txt', 'old content')
    Open3.popen2('unshare', '--user', '--map-root-user', '--pid', '--fork',
                 RbConfig.ruby, '-I', lib, '-e', script, root) do |stdin, stdout, wait|
      expect(stdout.gets).to eq("ready 1\n")
      expect(temporary_files.size).to eq(1)
      temp = temporary_files.first
      File.utime(week_ago, week_ago, temp)
      expect(native.sweep_leftovers(0)).to eq(0)
      expect(File.exist?(temp)).to be(true)
      stdin.puts 'commit'
      expect(stdout.gets).to eq("11\n")
      expect(wait.value).to be_success
    end
    expect(File.read(File.join(root, 'doc.txt'))).to eq('new content')
    expect(temporary_files).to be_empty
  end
end
