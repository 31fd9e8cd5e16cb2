# frozen_string_literal: true

RSpec.describe 'ruby_llm_file_store:chat_ui' do
  include TmpDirHelper

  before do
    require 'rails/generators'
    require_relative '../../lib/generators/ruby_llm_file_store/chat_ui_generator'
  rescue LoadError => e
    skip "needs railties: #{e.message}"
  end

  let(:partial) { File.join(tmp_dir, 'app/views/chats/_files.html.erb') }

  def generate(*args)
    RubyLLMFileStore::Generators::ChatUiGenerator.start(['--quiet', *args], destination_root: tmp_dir)
  end

  it 'writes a partial listing the shared files with download links, saying how to widen it' do
    generate
    source = File.read(partial)
    expect(source).to include('rails_blob_path(file.file, disposition: "attachment")')
    expect(source).to include('local_assigns.fetch(:files) { chat.ruby_llm_chat_files.shared }')
    expect(source).to include('files: @chat.ruby_llm_chat_files.where(owner_key: ["", ' \
                              'RubyLLM::ActiveRecord::ChatFile.key_for(Current.user)])')
  end

  it 'writes to another views folder when asked' do
    generate('--folder', 'conversations')
    expect(File).to exist(File.join(tmp_dir, 'app/views/conversations/_files.html.erb'))
  end

  context 'when rendered against real rows', :rails do
    let(:chat) { Chat.create!(model_id: 'gpt-4.1-mini') }
    let(:dana) { User.create!(name: 'Dana') }

    # Active Storage's routes need a Rails application; this stands in for
    # rails_blob_path and shows what the partial passed it.
    let(:blob_paths) do
      Module.new do
        def rails_blob_path(attachment, disposition:)
          "/blobs/#{attachment.blob.key}/#{attachment.filename}?disposition=#{disposition}"
        end
      end
    end

    before do
      require 'action_view'
      generate
    end

    def render(**locals)
      lookup = ActionView::LookupContext.new([File.join(tmp_dir, 'app/views')])
      view = ActionView::Base.with_empty_template_cache.new(lookup, {}, nil)
      view.extend(blob_paths)
      view.render(partial: 'chats/files', locals: { chat: }.merge(locals))
    end

    # The file name as the link shows it: Active Storage's own sanitising (Rails 8.1 writes
    # <b>.md as -b-.md), escaped.
    def linked_name(name)
      ERB::Util.html_escape(ActiveStorage::Filename.new(name).sanitized)
    end

    def links(html)
      html.scan(/<a [^>]*href="([^"]+)"[^>]*>([^<]+)</).map { |href, text| [text, href] }
    end

    it "lists the shared files with download links, and not an owner's" do
      shared = RubyLLM.file_store.active_storage(chat)
      shared.write('brief.md', '# Brief')
      shared.write('notes/<b>.md', 'notes')
      RubyLLM.file_store.active_storage(chat, owner: dana).write('secret.md', "Dana's")
      blobs = RubyLLM::ActiveRecord::ChatFile.where(chat_id: chat.id).to_h { |row| [row.path, row.file.blob.key] }

      html = render
      expect(links(html)).to eq([
                                  ['brief.md', "/blobs/#{blobs['brief.md']}/brief.md?disposition=attachment"],
                                  ['notes/&lt;b&gt;.md', "/blobs/#{blobs['notes/<b>.md']}/#{linked_name('<b>.md')}" \
                                                         '?disposition=attachment']
                                ])
      expect(html).not_to include('secret')
      expect(html).to include('7 Bytes')
    end

    it "lists the person's files too when the view passes them" do
      RubyLLM.file_store.active_storage(chat).write('brief.md', '# Brief')
      RubyLLM.file_store.active_storage(chat, owner: dana).write('secret.md', "Dana's")
      key = RubyLLM::ActiveRecord::ChatFile.key_for(dana)
      html = render(files: chat.ruby_llm_chat_files.where(owner_key: ['', key]))
      expect(links(html).map(&:first)).to eq(%w[brief.md secret.md])
    end

    it 'says when there are no files' do
      RubyLLM.file_store.active_storage(chat) # declares the association
      expect(render).to include('No files yet.')
    end
  end
end
