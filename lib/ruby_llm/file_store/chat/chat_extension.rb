# frozen_string_literal: true

require 'pathname'

module RubyLLM
  class FileStore
    # Chat#with_file_store and what it changes: the file tools, the per-request view
    # of the messages, and long tool results spilled to files.
    module ChatExtension
      NOT_GIVEN = Object.new.freeze
      private_constant :NOT_GIVEN

      # Attaches +store+ to the chat, like with_tools attaches tools: the model gets
      # list_files, read_file, search_files, write_file and edit_file, attachments
      # become files it reads on demand, and a tool result longer than
      # +spill_to_file+ characters is saved to a file (false sends every result
      # whole). A String or Pathname is a folder for a Directory store. nil removes
      # the store, and the next request sends everything again. Returns +self+.
      #
      #   chat.with_file_store
      #   chat.with_file_store(RubyLLM.file_store.directory("tmp/work"), spill_to_file: 20_000)
      #   chat.with_file_store(nil)
      #
      # +owner+ is for chats that are records (acts_as_chat), whose own Active Storage
      # store keeps files per person; a plain chat raises ArgumentError with one, as
      # it has no record to keep them with. nil is no owner.
      #
      # +attachments+ is :full (the latest question's attachments are sent in full,
      # then as their lines) or :lines (never in full: the model reads what it
      # needs with read_file and search_files, from the first question on).
      #
      #   chat.with_file_store(attachments: :lines)
      #
      # +extra_tools+ names tools offered only on request, beside the five, such as
      # :glob_files (paths matching a glob); an unknown name raises ArgumentError.
      #
      #   chat.with_file_store(store, extra_tools: [:glob_files])
      def with_file_store(store = NOT_GIVEN, spill_to_file: 10_000, owner: nil, attachments: :full, extra_tools: [])
        Seams.check!
        refuse_owner(owner) if owner
        mode = check_attachments(attachments)
        extra = Tools.on_request(extra_tools).map(&:tool_name)
        store = default_file_store if store.equal?(NOT_GIVEN)
        detach_file_store
        return self if store.nil?

        @file_store_attachments = mode
        attach_file_store(coerce_file_store(store), check_spill_limit(spill_to_file), extra)
        self
      end

      # The attached store, or nil.
      def file_store
        @file_store
      end

      # Calls the block with each StoredFile the conversation writes: attachments as
      # they are kept, long tool results, and what the tools write. Returns +self+.
      #
      #   chat.after_file_write { |file| Rails.logger.info "#{file.path} (#{file.human_size})" }
      def after_file_write(&block)
        raise ArgumentError, 'after_file_write needs a block' unless block

        file_write_callbacks << block
        self
      end

      # Whether the provider takes +attachment+ for this chat's model, as the request
      # would render it.
      def provider_takes?(attachment) # :nodoc:
        return true unless @provider

        @provider_takes ||= Hash.new { |by_model, model| by_model[model] = {}.compare_by_identity }
        takes = @provider_takes[@model&.id]
        takes.key?(attachment) ? takes[attachment] : takes[attachment] = renders?(attachment)
      end

      private

      # The messages as the request sends them (Seams::Chat calls it).
      def file_store_view(list)
        MessageView.new(keeper: @file_store_keeper, chat: self, attachments: @file_store_attachments || :full,
                        cache_control: file_store_cache_control).call(list)
      end

      # What the model gets for +content+, the result of +tool_call+: itself, or its
      # start when it was spilled to a file (Seams::Chat calls it).
      def file_store_spill(tool_call, content)
        Spiller.new(@file_store, @file_store_spill, method(:file_written), chat: self, config: @config)
               .call(tools[tool_call.name.to_sym], content)
      end

      def default_file_store
        RubyLLM.file_store.memory
      end

      def refuse_owner(owner)
        raise ArgumentError, "with_file_store(owner: #{owner.inspect}) needs a chat record declared with " \
                             'acts_as_chat; for a RubyLLM::Chat, pass ' \
                             'RubyLLM.file_store.active_storage(chat_record, owner:) as the store'
      end

      def coerce_file_store(store)
        return Directory.new(store) if store.is_a?(String) || store.is_a?(::Pathname)
        return store if store.is_a?(FileStore)

        raise ArgumentError, "with_file_store takes a RubyLLM::FileStore, a folder's path or nil, not #{store.inspect}"
      end

      def check_attachments(mode)
        return mode if MessageView::MODES.include?(mode)

        raise ArgumentError, "attachments takes :full or :lines, not #{mode.inspect}"
      end

      def check_spill_limit(limit)
        return limit if limit == false || (limit.is_a?(Integer) && limit.positive?)

        raise ArgumentError, "spill_to_file takes a number of characters or false, not #{limit.inspect}"
      end

      def attach_file_store(store, spill, extra)
        @file_store = store
        @file_store_spill = spill
        @file_store_keeper = AttachmentKeeper.new(store, method(:file_written), chat: self, config: @config)
        @file_store_tools = ChatTools.for(store, config: @config, on_write: method(:file_written),
                                                 code: -> { @tools.key?(:run_code) }, extra:, chat: self)
        with_tools(*@file_store_tools)
        Converters::Builtin.prestart(@config)
      end

      def detach_file_store
        (@file_store_tools || []).each do |tool|
          @tools.delete(tool.name.to_sym) if @tools[tool.name.to_sym].equal?(tool)
        end
        @file_store = @file_store_tools = @file_store_keeper = nil
      end

      def file_write_callbacks
        @file_write_callbacks ||= []
      end

      def file_written(file)
        file_write_callbacks.each { |callback| callback.call(file) }
      end

      def renders?(attachment)
        file_store_renders?(attachment)
        true
      rescue UnsupportedAttachmentError
        false
      rescue StandardError
        true
      end
    end
  end
end

RubyLLM::Chat.prepend(RubyLLM::FileStore::ChatExtension)
RubyLLM::Chat.prepend(RubyLLM::FileStore::Seams::Chat)
