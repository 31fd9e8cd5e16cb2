# frozen_string_literal: true

module RubyLLM
  class FileStore # :nodoc:
    # Each generation of ruby_llm hands a request's messages and a tool's result over
    # at its own seams, and declares a tool's parameter by its own name. The rest of
    # chat/, and the tools, are the same on every generation and reach ruby_llm's
    # differences only through the module Seams, which one file in this folder defines
    # for the generation loaded (chat/seams.rb loads it, before the tools): the first
    # in SEAMS whose hooks are all present, or none.rb, on which with_file_store says
    # which versions work.
    #
    # A seam file defines, as module functions of RubyLLM::FileStore::Seams:
    #
    # check!::                              raise ConfigurationError unless chats with files work here
    # declare_parameter(tool_class, name, **options):: declare a RubyLLM::Tool parameter
    #                                       (+type+, +description+, +required+)
    # file_result(text, attachment, code:):: what a tool returns to show the model a file
    # keepable?(attachment)::                whether the store can keep it (not a URL, ...)
    # bytes(attachment)::                    its bytes as its source holds them (not made UTF-8)
    # attachments(message)::                 a message's attachments, an Array
    # text_content?(message)::               whether its content is text the view may rebuild
    # rebuild(message, content, attachments):: a copy with String +content+ and +attachments+
    # cache_marked?(message)::               whether it is a prompt cache breakpoint
    # mark_cache(message, control)::         a copy marked as one
    #
    # and the module Seams::Chat, prepended to RubyLLM::Chat, which sends the request
    # ChatExtension#file_store_view of the messages, passes each tool result through
    # ChatExtension#file_store_spill (its add_tool_result_message), and defines the
    # private file_store_cache_control (what the view marks its breakpoint with, or
    # nil) and file_store_renders?(attachment) (raises UnsupportedAttachmentError when
    # the provider does not take it). none.rb defines check! (which always raises),
    # declare_parameter and file_result only: with_file_store refuses before the rest
    # is asked for. A new generation is a file here and its row in SEAMS.
    module Seams
      # What every seam file but none.rb defines; the loaded one is checked for them.
      INTERFACE = %i[check! declare_parameter file_result keepable? bytes attachments text_content? rebuild
                     cache_marked? mark_cache].freeze
      CHAT_INTERFACE = %i[file_store_cache_control file_store_renders?].freeze
    end

    # The ruby_llm versions whose chats this gem serves, for the error on the others.
    CHAT_VERSIONS = 'ruby_llm 1.16.0 or later (the 1.16 release or main)'

    # Each seam file, with the hooks of ruby_llm it needs: the first whose hooks are
    # all present is loaded.
    SEAMS = {
      'seams/preprocessed_messages' => {
        'Chat#preprocessed_messages' => -> { RubyLLM::Chat.private_method_defined?(:preprocessed_messages) },
        'Chat#add_tool_result_message' => -> { RubyLLM::Chat.private_method_defined?(:add_tool_result_message) },
        'Tool.split_result' => -> { RubyLLM::Tool.respond_to?(:split_result) },
        'Agent.apply_configuration' => -> { RubyLLM::Agent.respond_to?(:apply_configuration) }
      },
      'seams/provider_completion' => {
        'Chat#provider_completion' => -> { RubyLLM::Chat.private_method_defined?(:provider_completion) },
        'Chat#add_tool_result_message' => -> { RubyLLM::Chat.private_method_defined?(:add_tool_result_message) },
        'Content' => -> { defined?(RubyLLM::Content) && RubyLLM::Content.method_defined?(:attachments) },
        'Agent.apply_configuration' => lambda {
          defined?(RubyLLM::Agent) && RubyLLM::Agent.singleton_class.private_method_defined?(:apply_configuration)
        }
      }
    }.freeze

    SEAMS_FILE = SEAMS.find { |_, hooks| hooks.values.all?(&:call) }&.first || 'seams/none'

    # The seam loaded, checked against the interface.
    module Seams
      # The names of the interface the loaded seam file leaves undefined; none.rb is
      # exempt (see above).
      def self.missing
        return [] if SEAMS_FILE == 'seams/none'

        INTERFACE.reject { |name| respond_to?(name) } +
          CHAT_INTERFACE.reject { |name| Chat.private_method_defined?(name) }.map { |name| :"Chat##{name}" }
      end
    end
  end
end
