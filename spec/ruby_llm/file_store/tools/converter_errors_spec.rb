# frozen_string_literal: true

# A converter of the app's that raises: in development and test every tool that
# converts raises its exception, as read_file does, so it fails in front of the
# developer; in production the model reads which file could not be converted, never
# the exception, whose message may quote the app's source.
RSpec.describe 'A converter that raises, in each tool' do
  let(:boom) { 'boom in MyPdfReader at app/models/my_pdf_reader.rb:83' }
  let(:config) do
    error = boom
    Struct.new(:file_converters).new(
      RubyLLM::FileStore::Converters.defaults.merge('application/x-report' => ->(_) { raise error })
    )
  end

  def tool(name)
    RubyLLM::FileStore::Tools.declared.fetch(name).new(store, config:)
  end

  around do |example|
    example.run
  ensure
    RubyLLM::FileStore.raise_converter_errors = nil
  end

  each_shipped_store do
    before do
      store.write('q3.report', 'Revenue rose', content_type: 'application/x-report')
      store.write('notes.md', "Revenue fell\n")
    end

    it 'is raised out of read_file and search_files in development and test' do
      RubyLLM::FileStore.raise_converter_errors = true

      expect { tool('read_file').call(path: 'q3.report') }.to raise_error(RuntimeError, boom)
      expect { tool('search_files').call(pattern: 'Revenue') }.to raise_error(RuntimeError, boom)
      expect { tool('search_files').call(pattern: 'Revenue', path: 'q3.report') }.to raise_error(RuntimeError, boom)
    end

    it 'names the file, never the exception, for the model in production' do
      RubyLLM::FileStore.raise_converter_errors = false
      answers = [tool('read_file').call(path: 'q3.report'), tool('search_files').call(pattern: 'Revenue')]

      expect(answers).to eq(['Error: q3.report could not be converted: its application/x-report converter failed',
                             "notes.md:1: Revenue fell\n[1 file skipped: q3.report could not be converted " \
                             '(its application/x-report converter failed).]'])
      expect(answers.join).not_to include('app/models')
    end
  end
end
