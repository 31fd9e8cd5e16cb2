# frozen_string_literal: true

# The PDF converter against poppler's pdftotext and the pdf-reader gem, and the
# Office converter against a plain-Ruby unzip + regex, on the same files, in one
# run. Run by hand from the gem's folder after `rake compile`:
#
#   ruby bench/convert.rb
#
# Needs, only for this bench (the gem does not): Debian's poppler-utils
# (pdftotext) and ruby-pdf-reader. With LibreOffice (soffice) on the PATH it also
# writes a long PDF and .docx from spec/fixtures/handbook.txt into /tmp, once; without it
# only the small fixtures in spec/fixtures/documents are measured.
#
# pdftotext runs as a process per file, as a Ruby program would call it; the
# converters and pdf-reader run in this process. Each contender runs once to warm
# up, then RUNS times; the best run counts.

$LOAD_PATH.unshift(File.expand_path('../lib', __dir__))
require 'ruby_llm/file_store'
require 'open3'
require 'tmpdir'
require_relative 'support/plain_ruby_office'

class ConvertBench
  RUNS = 5
  ROOT = File.expand_path('..', __dir__)
  FIXTURES = File.join(ROOT, 'spec/fixtures/documents')
  LONG = File.join(Dir.tmpdir, 'ruby_llm_file_store_convert_bench')

  def run
    long_documents
    pdfs = Dir[File.join(FIXTURES, 'report.pdf'), File.join(LONG, '*.pdf')]
    offices = Dir[File.join(FIXTURES, '*.{docx,xlsx,pptx}'), File.join(LONG, '*.docx')]
    pdf_table(pdfs)
    office_table(offices)
  end

  private

  def pdf_table(files)
    pdf_reader = load_pdf_reader
    line('PDF', 'KB', 'ours ms', 'pdftotext ms', 'pdf-reader ms', 'ours/pdftotext', 'pdf-reader/ours')
    files.each do |path|
      bytes = File.binread(path)
      ours = best { RubyLLM::FileStore::Converters::PDF.call(attachment(bytes)) }
      poppler = best { Open3.capture2('pdftotext', '-enc', 'UTF-8', path, '-').first }
      reader = pdf_reader && best { pdf_reader.new(StringIO.new(bytes)).pages.map(&:text).join("\n") }
      row(path, bytes, ours, poppler, reader)
    end
    puts
  end

  def office_table(files)
    line('Office', 'KB', 'ours ms', 'plain Ruby ms', 'Ruby/ours')
    files.each do |path|
      bytes = File.binread(path)
      ours = best { RubyLLM::FileStore::Converters::Office.call(attachment(bytes)) }
      ruby = best { PlainRubyOffice.text(bytes) }
      line(File.basename(path), kb(bytes), ms(ours), ms(ruby), times(ruby / ours))
    end
  end

  def row(path, bytes, ours, poppler, reader)
    line(File.basename(path), kb(bytes), ms(ours), ms(poppler), reader ? ms(reader) : 'missing',
         times(ours / poppler), reader ? times(reader / ours) : '-')
  end

  def line(name, *cells)
    puts name.ljust(20) + cells.map { |cell| cell.to_s.rjust(16) }.join
  end

  def kb(bytes)
    format('%.1f', bytes.bytesize / 1024.0)
  end

  def ms(seconds)
    format('%.2f', seconds * 1000)
  end

  def times(ratio)
    format('%.2fx', ratio)
  end

  def attachment(bytes)
    RubyLLM::FileStore::Converters::LocalAttachment.new(content: bytes, filename: 'x', mime_type: nil)
  end

  # The fastest of RUNS runs of the block, in seconds, after one to warm up.
  def best(&block)
    block.call
    Array.new(RUNS) do
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      block.call
      Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
    end.min
  end

  def load_pdf_reader
    require 'pdf-reader'
    PDF::Reader
  rescue LoadError
    warn 'pdf-reader is missing (apt-get install ruby-pdf-reader): its column stays empty'
    nil
  end

  # A handbook of ~80 pages as PDF and .docx, written once by LibreOffice.
  def long_documents
    return if Dir.exist?(LONG) || !system('command -v soffice >/dev/null')

    Dir.mkdir(LONG)
    text = File.read(File.join(ROOT, 'spec/fixtures/handbook.txt')) * 4
    File.write(File.join(LONG, 'handbook.txt'), text)
    %w[pdf docx].each do |format|
      system('soffice', '--headless', "-env:UserInstallation=file://#{LONG}/profile", '--convert-to', format,
             '--outdir', LONG, File.join(LONG, 'handbook.txt'), out: File::NULL, err: File::NULL)
    end
  end
end

ConvertBench.new.run if $PROGRAM_NAME == __FILE__
