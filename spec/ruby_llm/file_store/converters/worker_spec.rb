# frozen_string_literal: true

require 'open3'
require 'timeout'

# Every conversion runs in a convert worker process: a document that needs more than a
# conversion may have ends its worker, which the model reads as a refusal, and never
# the app; a caller that gives up leaves no worker and no thread behind.
RSpec.describe 'Document conversion in a worker process', :large do
  include TmpDirHelper
  include Waiting

  # 100,000 form fields sharing one 4 MB value: asked for 400 GB, and aborted the
  # whole Ruby process when the converters ran in it.
  let(:hostile_pdf) { HostilePDFs.form_fields_sharing_value(100_000, 4) }
  let(:refusal) { 'report.pdf could not be read: the document needs more than 1 GB of memory to convert' }

  def workers
    ConvertWorkers.pids.size
  end

  def threads
    Dir['/proc/self/task/*'].size
  end

  it 'gives read_file on a memory store a refusal the model reads, and the next read works' do
    store = RubyLLM.file_store.memory
    store.write('report.pdf', hostile_pdf)
    store.write('notes.pdf', HostileDocuments.pdf('BT /F1 12 Tf 72 700 Td (quarterly notes) Tj ET'))
    read = RubyLLM::FileStore::Tools::ReadFile.new(store)
    expect(read.call(path: 'report.pdf')).to eq("Error: #{refusal}")
    expect(read.call(path: 'notes.pdf')).to include('quarterly notes')
    # The same document is not sent to a worker again.
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    expect(read.call(path: 'report.pdf')).to eq("Error: #{refusal}")
    expect(Process.clock_gettime(Process::CLOCK_MONOTONIC) - started).to be < 1
  end

  it 'tells search_files on a folder store which file could not be read, and converts it once' do
    store = RubyLLM.file_store.directory(tmp_dir)
    store.write('report.pdf', hostile_pdf)
    store.write('notes.txt', "quarterly notes\n")
    search = RubyLLM::FileStore::Tools::SearchFiles.new(store)
    first = search.call(pattern: 'quarterly')
    expect(first).to include('notes.txt', 'report.pdf could not be read: the document needs more than 1 GB')
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    expect(search.call(pattern: 'quarterly')).to eq(first)
    # The refusal is kept for that version of the file: no second worker dies on it.
    expect(Process.clock_gettime(Process::CLOCK_MONOTONIC) - started).to be < 1
    expect(RubyLLM::FileStore::Tools::ReadFile.new(store).call(path: 'report.pdf')).to eq("Error: #{refusal}")
  end

  it 'refuses in read_file and search_files an object stream that names one 16 MB object 4,000 times' do
    store = RubyLLM.file_store.memory
    store.write('stream.pdf', HostilePDFs.object_stream_fan(4_000, 16))
    store.write('notes.txt', "stream notes\n")
    expect(RubyLLM::FileStore::Tools::ReadFile.new(store).call(path: 'stream.pdf'))
      .to eq('Error: stream.pdf could not be read: the document needs more than 1 GB of memory to convert')
    expect(RubyLLM::FileStore::Tools::SearchFiles.new(store).call(pattern: 'stream'))
      .to include('notes.txt:1: stream notes', 'stream.pdf could not be read: the document needs more than 1 GB')
  end

  it 'leaves no worker and no thread a second after a Timeout gives up on a conversion' do
    page = HostileDocuments.pdf(HostileDocuments.shows(60 << 20))
    RubyLLM::FileStore::Native.convert_html('<p>warm</p>')
    Timeout.timeout(1) { nil } # a Timeout of its own thread, kept for later calls
    before = threads
    10.times do
      expect do
        Timeout.timeout(0.2) { RubyLLM::FileStore::Native.convert_pdf(page) }
      end.to raise_error(Timeout::Error)
    end
    expect(wait_until(1) { workers <= 1 }).to be(true)
    expect(threads).to be <= before
    expect(RubyLLM::FileStore::Native.convert_html('<p>after</p>')[:text]).to eq("after\n")
  end

  it 'leaves a search that Timeout stopped, retried, converting nothing in the background' do
    store = RubyLLM.file_store.directory(tmp_dir)
    4.times { |n| store.write("slow-#{n}.pdf", HostileDocuments.pdf(HostileDocuments.shows(40 << 20))) }
    search = RubyLLM::FileStore::Tools::SearchFiles.new(store)
    4.times do
      expect { Timeout.timeout(0.3) { search.call(pattern: 'anything') } }.to raise_error(Timeout::Error)
    end
    # What stays is at most the idle workers the pool keeps: none converting.
    sleep 1
    busy = ConvertWorkers.pids.count { |pid| ConvertWorkers.state(pid) == 'R' }
    expect(busy).to eq(0)
  end

  it 'keeps an app limited to 1 GB of address space alive through the document' do
    script = <<~RUBY
      Process.setrlimit(:AS, 1 << 30)
      $LOAD_PATH.unshift(#{File.expand_path('../../../../lib', __dir__).inspect})
      require 'ruby_llm/file_store'
      require #{File.expand_path('../../../support/hostile_pdfs', __dir__).inspect}
      store = RubyLLM.file_store.memory
      store.write('report.pdf', HostilePDFs.form_fields_sharing_value(100_000, 4))
      puts RubyLLM::FileStore::Tools::ReadFile.new(store).call(path: 'report.pdf')
      puts 'alive'
    RUBY
    output, status = Open3.capture2e(RbConfig.ruby, '-e', script)
    expect(status).to be_success, output
    expect(output).to eq("Error: #{refusal}\nalive\n")
  end
end
