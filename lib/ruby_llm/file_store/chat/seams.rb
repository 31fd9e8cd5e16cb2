# frozen_string_literal: true

# The glue to the ruby_llm loaded, which the tools (how a parameter is declared, how a
# file is returned) and the chat integration use: seams/interface.rb picks the seam
# file of its generation. Then spill_to_file on RubyLLM::Tool, which the tools set.
require_relative 'seams/interface'
require_relative RubyLLM::FileStore::SEAMS_FILE
unless RubyLLM::FileStore::Seams.missing.empty?
  raise NotImplementedError, "#{RubyLLM::FileStore::SEAMS_FILE}.rb does not define " \
                             "#{RubyLLM::FileStore::Seams.missing.join(', ')} (see chat/seams/interface.rb)"
end
require_relative 'tool_spill'
