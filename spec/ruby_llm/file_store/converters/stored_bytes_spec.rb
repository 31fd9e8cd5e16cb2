# frozen_string_literal: true

# A converter reads a file's bytes as stored, whatever store keeps it and whichever
# ruby_llm is loaded: ruby_llm main's Attachment#content makes a text type's bytes
# valid UTF-8, which would turn a page in another charset into mojibake before the
# HTML converter read its <meta charset> or byte order mark.
RSpec.describe 'A converter reads the bytes as stored', :ruby_llm do
  include ScriptedLLMServer::Helpers

  let(:pages) do
    {
      'latin1.html' => "<html><head><meta charset=\"iso-8859-1\"></head><body><p>Caf\xE9 cr\xE8me</p></body></html>".b,
      'sjis.html' => ['<html><head><meta charset="Shift_JIS"></head><body><p>', '日本語のテキスト'.encode('Shift_JIS'),
                      '</p></body></html>'].map(&:b).join,
      'utf16.html' => "\xFF\xFE".b + '<html><body><p>Café crème</p></body></html>'.encode('UTF-16LE').b
    }
  end
  let(:texts) { { 'latin1.html' => 'Café crème', 'sjis.html' => '日本語のテキスト', 'utf16.html' => 'Café crème' } }

  each_shipped_store do
    it 'reads a Latin-1, a Shift_JIS and a UTF-16 page by their charset' do
      pages.each { |path, bytes| store.write(path, bytes) }

      expect(pages.keys.to_h { |path| [path, store.text(path)] }).to eq(texts.transform_values { |text| "#{text}\n" })
      expect(RubyLLM::FileStore::Tools::ReadFile.new(store).call(path: 'latin1.html')).to eq("     1\tCafé crème")
      expect(RubyLLM::FileStore::Tools::SearchFiles.new(store).call(pattern: 'crème|テキスト'))
        .to eq("latin1.html:1: Café crème\nsjis.html:1: 日本語のテキスト\nutf16.html:1: Café crème")
    end

    it 'keeps a Latin-1 page attached to a question as its bytes, and reads it by its charset' do
      # ruby_llm 1.16 sends a text attachment as it is, and its JSON refuses what is not UTF-8.
      skip 'ruby_llm 1.16 cannot send this page' if RubyLLM::FileStore::SEAMS_FILE == 'seams/provider_completion'

      server = ScriptedLLMServer.start
      server.script(ScriptedLLMServer.text('A menu.'))
      path = File.join(tmp_dir, 'menu.html')
      File.binwrite(path, pages['latin1.html'])
      scripted_chat(server).with_file_store(store).ask('What is this?', with: path)

      expect(store.read('menu.html').b).to eq(pages['latin1.html'])
      expect(store.text('menu.html')).to eq("Café crème\n")
    ensure
      server&.stop
    end

    it "hands a converter of the app's the bytes as stored" do
      seen = []
      config = Struct.new(:file_converters).new({ 'text/html' => ->(file) { (seen << file.content.b) && 'text' } })
      pages.each { |path, bytes| store.write(path, bytes) }
      pages.each_key { |path| store.text(path, config:) }

      expect(seen).to eq(pages.values)
    end
  end
end
