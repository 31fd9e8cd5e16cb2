# frozen_string_literal: true

require 'timeout'

# The escape suite, part eight: the folder where what a run left past its limits
# waits to be removed (.ruby_llm_removing), which the run can reach and, for an
# unprivileged app, make itself with the app's own uid. bin/test-sandbox runs it
# as root, as an unprivileged user, and as that user in delegated cgroups.
RSpec.describe 'The code sandbox: what waits to be removed', if: ENV.fetch('RUBY_LLM_SANDBOX_SUITE', nil) do
  include TmpDirHelper

  let(:store) { RubyLLM.file_store.directory(File.join(tmp_dir, 'store')) }
  let(:runner) { RubyLLM::FileStore::CodeRunner.new(store, shell: true, timeout: 30) }
  let(:held) { File.join(store.local_root, '.ruby_llm_removing') }

  def bytes_below(dir)
    Dir.glob('**/*', File::FNM_DOTMATCH, base: dir).sum { |path| File.lstat(File.join(dir, path)).size }
  end

  # An unprivileged app's runs once left 300 MB a run this way, listed nowhere, and the
  # removal, which could not unlink in the 0500 folder, stopped there for good.
  it 'made by the run, with a 0500 folder of 30 MB inside, is emptied and removed after the call, and stays so' do
    code = 'mkdir -p .ruby_llm_removing/locked/deeper && chmod 700 .ruby_llm_removing && ' \
           'head -c 30000000 /dev/zero > .ruby_llm_removing/locked/deeper/big && ' \
           'chmod 500 .ruby_llm_removing/locked/deeper .ruby_llm_removing/locked'
    2.times do
      expect(runner.run(language: 'shell', code:).exit_code).to eq(0)
      Timeout.timeout(60) { sleep 0.1 while File.exist?(held) }
    end
    expect(bytes_below(store.local_root)).to be < 1 << 20
  end
end
