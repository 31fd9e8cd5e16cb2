# frozen_string_literal: true

require 'logger'
require 'open3'
require 'stringio'

# A Rails app whose convert worker cannot run: deleted by a deploy, or on a file system
# mounted noexec (a hardened container's /tmp or gem path). The model reads an error
# naming where the worker was looked for and why, the log says it at error level, and
# nothing of the failure is kept in the chat's rows: once the worker is back, the page
# is read as its text, not as the markup a silent fallback would have kept.
RSpec.describe 'RubyLLM::ActiveRecord::FileStore without a convert worker', :rails do
  include TmpDirHelper

  let(:chat) { Chat.create!(model_id: 'gpt-4.1-mini') }
  let(:store) { RubyLLM.file_store.active_storage(chat) }
  let(:read) { RubyLLM::FileStore::Tools::ReadFile.new(store) }
  let(:program) { RubyLLM::FileStore::Native.converter_program }
  let(:log) { StringIO.new }
  let(:page) { '<html><body><h1>Quarterly report</h1><p>Revenue grew.</p></body></html>' }

  before do
    program
    allow(RubyLLM).to receive(:logger).and_return(Logger.new(log))
    store.write('page.html', page)
  end

  after { RubyLLM::FileStore::Native.converter_program = program }

  def row
    RubyLLM::ActiveRecord::ChatFile.find_by!(chat_id: chat.id, path: 'page.html')
  end

  # Reads the page with the worker at +path+, then with the real one: the first read's
  # answer, and what the row kept in between.
  def read_without_worker_at(path)
    RubyLLM::FileStore::Native.converter_program = path
    answer = read.call(path: 'page.html')
    kept = row.text
    RubyLLM::FileStore::Native.converter_program = program
    [answer, kept]
  end

  it 'tells the model where the worker was looked for, keeps nothing, and reads the text once it is back' do
    missing = File.join(tmp_dir, 'file_store_convert')
    answer, kept = read_without_worker_at(missing)

    expect(answer).to eq("Error: page.html could not be read now: the convert worker #{missing} cannot run: " \
                         'there is no file there')
    expect(kept).to be_nil
    expect(log.string).to include('ERROR -- : ruby_llm-file_store: page.html could not be read now')
    expect(read.call(path: 'page.html')).to include('Quarterly report').and include('Revenue grew.')
      .and(satisfy { |text| !text.include?('<h1>') })
    expect(row.text).to include('Quarterly report')
  end

  context 'with the worker on a file system mounted noexec' do
    let(:mount) { File.join(tmp_dir, 'noexec') }

    around do |example|
      FileUtils.mkdir_p(mount)
      _, error, status = Open3.capture3('mount', '-t', 'tmpfs', '-o', 'noexec,size=64m', 'tmpfs', mount)
      skip "mounting a noexec file system needs root: #{error.strip}" unless status.success?
      begin
        example.run
      ensure
        system('umount', mount)
      end
    end

    it 'says it may not be run there, keeps nothing, and reads the text once it is back' do
      copy = File.join(mount, 'file_store_convert')
      FileUtils.cp(program, copy)
      File.chmod(0o755, copy)
      answer, kept = read_without_worker_at(copy)

      expect(answer).to eq("Error: page.html could not be read now: the convert worker #{copy} cannot run: it may " \
                           'not be run there (not executable, or on a file system mounted noexec)')
      expect(kept).to be_nil
      expect(read.call(path: 'page.html')).to include('Quarterly report').and(satisfy { |text| !text.include?('<p>') })
    end
  end
end
