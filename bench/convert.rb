# frozen_string_literal: true

# The converters measured against references on real documents: PDFs Debian
# ships under /usr/share/doc against poppler's pdftotext, and documents
# LibreOffice writes here (from spec/fixtures' sources and handbook.txt) against
# LibreOffice's own text export (Writer: txt; Calc: csv of every sheet;
# presentations: pdftotext of LibreOffice's PDF). Run by hand after
# `rake compile`:
#
#   ruby bench/convert.rb
#
# Needs, only for this bench (the gem does not): poppler-utils and
# libreoffice-writer, -calc and -impress (apt-get install --no-install-recommends),
# and unzip (to read a workbook's sheet order).
#
# recall: the share of the reference's words (letters and digits, lower-cased,
# counted with repeats) that our text has. order: the longest run of those words
# that keeps the reference's order (each word's k-th occurrence matched to ours,
# then a longest increasing subsequence), as a share of the reference's words.
# Times: ours in this process, best of RUNS; the reference as the process a Ruby
# program would run, once (LibreOffice's includes its start-up).

$LOAD_PATH.unshift(File.expand_path('../lib', __dir__))
# ruby_llm, which the gem requires, as the specs find it (RUBY_LLM_PATH, else ../shared/gems).
require_relative '../spec/ruby_llm_path'
RubyLLMPath.load!
require 'ruby_llm/file_store'
require 'open3'
require 'tmpdir'
require 'zlib'
require 'fileutils'
require_relative 'support/word_match'
require_relative 'support/sheet_order'

class ConvertBench
  include WordMatch
  include SheetOrder

  RUNS = 3
  ROOT = File.expand_path('..', __dir__)
  SOURCES = File.join(ROOT, 'spec/fixtures/documents')
  CORPUS = File.join(Dir.tmpdir, 'ruby_llm_file_store_corpus')
  # Calc's CSV export: UTF-8, cells as shown, every sheet to a file of its own.
  CSV_ALL_SHEETS = 'csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true,false,false,-1'

  def run
    corpus
    line('file', 'KB', 'recall', 'order', 'ours ms', 'ref ms', 'ref/ours')
    totals = Hash.new(0)
    files.each { |path, reference| measure(path, reference, totals) }
    puts "all: recall #{percent(totals[:found], totals[:words])} of #{totals[:words]} reference words; " \
         "ours #{(totals[:ours] * 1000).round} ms, references #{(totals[:ref] * 1000).round} ms"
  end

  private

  def files
    pdfs = Dir[File.join(CORPUS, 'doc', '*.pdf')].map { |path| [path, :pdftotext] }
    offices = Dir[File.join(CORPUS, 'lo', '*.{docx,odt,xlsx,ods,pptx,odp,epub}')].map { |path| [path, :libreoffice] }
    (pdfs + offices).sort
  end

  def measure(path, reference, totals)
    bytes = File.binread(path)
    ours_text, ours = ours(path, bytes)
    started = clock
    ref_text = send(reference, path)
    ref = clock - started
    found, order, count = compare(words(ours_text), words(ref_text))
    { found:, words: count, ours:, ref: }.each { |key, value| totals[key] += value }
    line(File.basename(path), format('%.0f', bytes.bytesize / 1024.0), percent(found, count), percent(order, count),
         format('%.1f', ours * 1000), format('%.0f', ref * 1000), format('%.0fx', ref / ours))
  end

  # Our text of the file at +path+, and the best time taken.
  def ours(path, bytes)
    converter = path.end_with?('.pdf') ? :convert_pdf : :convert_office
    text = nil
    time = best { text = RubyLLM::FileStore::Native.public_send(converter, bytes)[:text].to_s }
    [text, time]
  end

  def percent(part, whole)
    whole.zero? ? '-' : format('%.2f%%', 100.0 * part / whole)
  end

  def pdftotext(path)
    Open3.capture2('pdftotext', '-enc', 'UTF-8', path, '-').first
  end

  def libreoffice(path)
    out = Dir.mktmpdir(nil, CORPUS)
    case File.extname(path)
    when '.docx', '.odt', '.epub' then soffice('txt:Text (encoded):UTF8', path, out)
    when '.xlsx', '.ods' then soffice(CSV_ALL_SHEETS, path, out)
    else
      soffice('pdf', path, out)
      Dir[File.join(out, '*.pdf')].each { |pdf| File.write("#{pdf}.txt", pdftotext(pdf)) }
    end
    texts = in_sheet_order(path, Dir[File.join(out, '*.{txt,csv}')])
    texts.map { |file| File.read(file, encoding: 'UTF-8') }.join("\n")
  ensure
    FileUtils.rm_rf(out)
  end

  def soffice(format, path, out)
    system('soffice', '--headless', "-env:UserInstallation=file://#{CORPUS}/profile", '--convert-to', format,
           '--outdir', out, path, out: File::NULL, err: File::NULL)
  end

  # Debian's PDFs (gunzipped), and LibreOffice's documents from the fixtures' sources.
  def corpus
    return if Dir.exist?(CORPUS)

    FileUtils.mkdir_p([File.join(CORPUS, 'doc'), File.join(CORPUS, 'lo')])
    debian_pdfs
    libreoffice_documents(File.join(CORPUS, 'lo'))
  end

  def debian_pdfs
    Dir['/usr/share/doc/**/*.pdf{,.gz}'].each do |source|
      bytes = source.end_with?('.gz') ? Zlib.gunzip(File.binread(source)) : File.binread(source)
      File.binwrite(File.join(CORPUS, 'doc', File.basename(source, '.gz')), bytes) if bytes.start_with?('%PDF')
    end
  end

  def libreoffice_documents(dir)
    FileUtils.cp(Dir[File.join(SOURCES, '*.fod{t,s,p}')], dir)
    File.write(File.join(dir, 'handbook.txt'), File.read(File.join(ROOT, 'spec/fixtures/handbook.txt')) * 4)
    texts = Dir[File.join(dir, '*.{fodt,txt}')]
    { 'docx' => texts, 'odt' => texts, 'epub' => texts, 'xlsx' => Dir[File.join(dir, '*.fods')],
      'ods' => Dir[File.join(dir, '*.fods')], 'pptx' => Dir[File.join(dir, '*.fodp')] }.each do |format, sources|
      soffice_many(format, sources, dir) unless sources.empty?
    end
  end

  def soffice_many(format, sources, out)
    system('soffice', '--headless', "-env:UserInstallation=file://#{CORPUS}/profile", '--convert-to', format,
           '--outdir', out, *sources, out: File::NULL, err: File::NULL)
  end

  def line(name, *cells)
    puts name.ljust(28) + cells.map { |cell| cell.to_s.rjust(11) }.join
  end

  def clock = Process.clock_gettime(Process::CLOCK_MONOTONIC)

  def best(&block)
    block.call
    Array.new(RUNS) do
      started = clock
      block.call
      clock - started
    end.min
  end
end

ConvertBench.new.run if $PROGRAM_NAME == __FILE__
