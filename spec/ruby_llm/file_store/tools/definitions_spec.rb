# frozen_string_literal: true

require 'json'

# The tools' definitions as a request carries them, one line per tool and provider
# format (what the provider's payload renders: name, description, parameters schema),
# compared byte for byte with those recorded in spec/fixtures/tool_definitions/, one
# file per ruby_llm set of the gem kit. A change to what the model reads about a tool
# shows here; RECORD_TOOL_DEFINITIONS=1 writes the files again, for a change meant.
RSpec.describe 'The tool definitions a request carries', :ruby_llm do
  fixtures = File.expand_path('../../../fixtures/tool_definitions', __dir__)

  # The kit's set ruby_llm was loaded from (ruby_llm-main, ruby_llm-1.16): both say
  # VERSION 1.16.0.
  def ruby_llm_set
    File.basename(File.expand_path('../../../..', RubyLLM::Tool.instance_method(:description).source_location.first))
  end

  # The two formats every provider's tools take after: OpenAI's chat completions and
  # Anthropic's messages (the modules moved between 1.16 and main).
  def formats
    if defined?(RubyLLM::Protocols::ChatCompletions)
      { 'openai' => RubyLLM::Protocols::ChatCompletions::Tools.method(:tool_for),
        'anthropic' => RubyLLM::Protocols::Anthropic::Tools.method(:function_for) }
    else
      { 'openai' => RubyLLM::Providers::OpenAI::Tools.method(:tool_for),
        'anthropic' => RubyLLM::Providers::Anthropic::Tools.method(:function_for) }
    end
  end

  def chat
    RubyLLM.context { |config| config.openai_api_key = 'unused' }
           .chat(model: 'gpt-4.1-mini', provider: :openai, assume_model_exists: true)
  end

  # Every tool a chat can get: the five and glob_files over a memory store, with
  # run_code on copies; run_code again over a folder, where it runs in place.
  def definitions
    copies = chat.with_file_store(RubyLLM.file_store.memory, extra_tools: [:glob_files])
                 .with_code_execution(shell: true, sandbox: false)
    in_place = chat.with_file_store(RubyLLM.file_store.directory(Dir.mktmpdir('definitions')))
                   .with_code_execution(shell: true, sandbox: false)
    tools = copies.tools.values.map { |tool| ['copies', tool] } << ['in place', in_place.tools[:run_code]]
    tools.flat_map do |where, tool|
      formats.map { |format, render| JSON.generate({ where:, format:, definition: render.call(tool) }) }
    end
  end

  it 'are the ones recorded for this ruby_llm' do
    path = File.join(fixtures, "#{ruby_llm_set}.jsonl")
    lines = definitions
    if ENV['RECORD_TOOL_DEFINITIONS']
      FileUtils.mkdir_p(fixtures)
      File.write(path, lines.join("\n") << "\n")
    end
    skip "no definitions recorded for #{ruby_llm_set} (RECORD_TOOL_DEFINITIONS=1 records them)" unless File.exist?(path)

    expect(lines).to eq(File.read(path).lines(chomp: true))
  end

  it 'are the same on every ruby_llm recorded' do
    recorded = Dir[File.join(fixtures, '*.jsonl')].map { |file| File.read(file) }
    skip 'fewer than two ruby_llm sets recorded' if recorded.size < 2

    expect(recorded.uniq.size).to eq(1)
  end
end
