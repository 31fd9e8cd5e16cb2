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

  # A document under that ceiling goes to its worker a piece at a time: the app
  # once read a folder store's 200 MB file whole first.
  it 'sends a 200 MB PDF of a folder store to its worker without holding it' do
    File.open(File.join(root, 'large.pdf'), 'wb') { |file| file.truncate(200 << 20) }
    out, status = Open3.capture2e(RbConfig.ruby, '-I', lib, '-e', <<~RUBY)
      require 'ruby_llm/file_store'
      peak = -> { File.read('/proc/self/status')[/VmHWM:\s+(\d+)/, 1].to_i * 1024 }
      store = RubyLLM::FileStore::Directory.new(#{root.inspect})
      GC.start
      File.write('/proc/self/clear_refs', '5')
      before = peak.call
      puts RubyLLM::FileStore::Tools::ReadFile.new(store).call(path: 'large.pdf')
      puts (peak.call - before) >> 20
    RUBY
    expect(status).to be_success, out
    # 200 MB of zeros: the worker read them all and found no PDF.
    expect(out.lines.first).to eq("large.pdf (application/pdf, 200 MB) has no text to read.\n")
    expect(out.lines.last.to_i).to be < 32
  end

  # A 500 KB .docx whose text is 59 MB: the app once held it two and three times
  # over (the worker's answer, Ruby's copy, and a copy for each window read). A
  # folder store's core keeps the text and reads each window there.
  {
    'memory' => ['RubyLLM.file_store.memory', 1.25],
    'folder' => ['RubyLLM::FileStore::Directory.new(ROOT)', 1.25]
  }.each do |kind, (store, times)|
    it "holds a document's 59 MB text at most #{times} times while a #{kind} store converts and reads it" do
      out, status = Open3.capture2e(RbConfig.ruby, '-I', lib, '-e', <<~RUBY)
        require 'ruby_llm/file_store'
        require #{File.expand_path('../../support/hostile_documents', __dir__).inspect}
        peak = -> { File.read('/proc/self/status')[/VmHWM:\\s+(\\d+)/, 1].to_i * 1024 }
        unit = "<w:p><w:r><w:t>\#{'lorem ipsum ' * 40}</w:t></w:r></w:p>"
        docx = HostileDocuments.zip([['word/document.xml', *HostileDocuments.deflated_repeat(unit, 130_000)]])
        store = #{store.sub('ROOT', root.inspect)}
        store.write('big.docx', docx)
        GC.start
        File.write('/proc/self/clear_refs', '5')
        before = peak.call
        shown = RubyLLM::FileStore::Tools::ReadFile.new(store).call(path: 'big.docx', offset: 100_000, limit: 2)
        held = peak.call - before
        puts [shown[/^ *100000\\t/] ? 'read' : shown[0, 80], store.text('big.docx').bytesize, held].join(' ')
      RUBY
      expect(status).to be_success, out
      read, text, held = out.split
      expect(read).to eq('read')
      expect(text.to_i).to be > 50 << 20
      warn "#{kind}: #{(held.to_f / text.to_i).round(2)} times the text" if ENV['VERBOSE']
      expect(held.to_f / text.to_i).to be < times
    end
  end
end
