# frozen_string_literal: true

require 'open3'
require 'rbconfig'

# The tools on a 200 MB file hold a few MB, not the file: measured as the peak
# resident memory (VmHWM) of a fresh Ruby process, against the same process that
# only loads the gem and opens the store.
RSpec.describe 'Memory on large files', :large do
  include TmpDirHelper

  let(:root) { File.join(tmp_dir, 'store') }
  let(:lib) { File.expand_path('../../../lib', __dir__) }

  before do
    FileUtils.mkdir_p(root)
    line = "#{'a' * 99}\n"
    File.open(File.join(root, 'big.txt'), 'wb') { |file| 200.times { file.write(line * 10_000) } }
  end

  # Peak resident memory in MB of a child that runs +code+ with +store+ and +tools+.
  def peak_mb(code)
    script = <<~RUBY
      require 'ruby_llm/file_store'
      store = RubyLLM::FileStore::Directory.new(#{root.inspect})
      tool = ->(name) { RubyLLM::FileStore::Tools.const_get(name).new(store) }
      #{code}
      puts File.read('/proc/self/status')[/VmHWM:\\s+(\\d+)/, 1].to_i / 1024.0
    RUBY
    out, status = Open3.capture2(RbConfig.ruby, '-I', lib, '-e', script)
    expect(status).to be_success
    out.lines.last.to_f
  end

  it 'reads, edits and searches a 200 MB file within 64 MB over the loaded gem' do
    baseline = peak_mb('nil')
    used = peak_mb(<<~RUBY)
      raise 'lines' unless tool[:ReadFile].call(path: 'big.txt', limit: 10**12).length <= 100_000
      raise 'chars' unless tool[:ReadFile].call(path: 'big.txt', limit: 10**12, unit: 'characters').length <= 100_000
      raise 'edit' unless tool[:EditFile].call(path: 'big.txt', old_text: 'a', new_text: 'b').include?('over this store')
      raise 'search' unless tool[:SearchFiles].call(pattern: 'a+').include?('Showing 200 of 2000000')
    RUBY
    warn "memory: #{(used - baseline).round(1)} MB over a #{baseline.round(1)} MB baseline" if ENV['VERBOSE']
    expect(used - baseline).to be < 64
  end

  # A 3 GB file once went whole into the app on its way to a convert worker: under a
  # 2 GB address-space limit the app aborted, without one it grew past 2 GB.
  it 'refuses a 3 GB PDF before reading it, under a 2 GB address-space limit, and lives on' do
    File.open(File.join(root, 'huge.pdf'), 'wb') { |file| file.truncate(3 << 30) }
    out, status = Open3.capture2e(RbConfig.ruby, '-I', lib, '-e', <<~RUBY)
      Process.setrlimit(:AS, 2_000_000_000)
      require 'ruby_llm/file_store'
      store = RubyLLM::FileStore::Directory.new(#{root.inspect})
      puts RubyLLM::FileStore::Tools::ReadFile.new(store).call(path: 'huge.pdf')
      puts RubyLLM::FileStore::Tools::SearchFiles.new(store).call(pattern: 'anything', path: 'huge.pdf')
      puts File.read('/proc/self/status')[/VmHWM:\\s+(\\d+)/, 1].to_i / 1024
    RUBY
    expect(status).to be_success, out
    refusal = 'the document is 3072 MB, more than the 256 MB a conversion takes'
    expect(out.lines[0]).to eq("Error: huge.pdf could not be read: #{refusal}\n")
    expect(out).to include("1 file skipped: huge.pdf could not be read: #{refusal}")
    expect(out.lines.last.to_i).to be_between(1, 255)
  end
end
