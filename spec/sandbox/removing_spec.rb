# frozen_string_literal: true

require 'timeout'

# The escape suite, part eight: the folder where what a run left past its limits
# waits to be removed (.ruby_llm_removing). An unprivileged app's run has the app's
# own uid, so a folder it made under that name once passed for the app's and hid what
# it held from every look (300 MB a run); the gem now makes it before the run and the
# run sees it covered. bin/test-sandbox runs it as root, as an unprivileged user, and
# as that user in delegated cgroups.
RSpec.describe 'The code sandbox: what waits to be removed', if: ENV.fetch('RUBY_LLM_SANDBOX_SUITE', nil) do
  include TmpDirHelper

  let(:store) { RubyLLM.file_store.directory(File.join(tmp_dir, 'store')) }
  let(:runner) { RubyLLM::FileStore::CodeRunner.new(store, shell: true, timeout: 30) }
  let(:held) { File.join(store.local_root, '.ruby_llm_removing') }

  def bytes_below(dir)
    Dir.glob('**/*', File::FNM_DOTMATCH, base: dir).sum { |path| File.lstat(File.join(dir, path)).size }
  end

  def emptied
    Timeout.timeout(60) { sleep 0.1 until Dir.empty?(held) }
  end

  it 'is out of the run\'s reach: the run can neither fill, rename, remove nor make it' do
    code = 'mkdir -p .ruby_llm_removing/locked; head -c 30000000 /dev/zero > .ruby_llm_removing/big; ' \
           'mv .ruby_llm_removing taken; rmdir .ruby_llm_removing; rm -rf .ruby_llm_removing; ' \
           'ls -A .ruby_llm_removing | wc -l'
    2.times do
      result = runner.run(language: 'shell', code:)
      expect(result.stdout.strip).to eq('0')
      expect(File.exist?(File.join(store.local_root, 'taken'))).to be(false)
    end
    stat = File.lstat(held)
    expect([stat.directory?, stat.uid, stat.mode & 0o777]).to eq([true, Process.euid, 0o700])
    expect(Dir.children(held)).to be_empty
    expect(bytes_below(store.local_root)).to be < 1 << 20
  end

  it 'empties a 0500 folder of 30 MB a run left past its limits after the call, run after run' do
    runner = RubyLLM::FileStore::CodeRunner.new(store, shell: true, timeout: 30, limits: { new_names: 1 })
    code = 'mkdir -p kept/locked && head -c 30000000 /dev/zero > kept/locked/big && chmod 500 kept/locked'
    2.times do |round|
      FileUtils.rm_rf(File.join(store.local_root, 'kept'))
      expect(runner.run(language: 'shell', code:).exit_code).to eq(0)
      emptied
      expect(bytes_below(store.local_root)).to be < 1 << 20, "round #{round}"
      expect(Dir.exist?(File.join(store.local_root, 'kept/locked'))).to be(false)
    end
  end
end
