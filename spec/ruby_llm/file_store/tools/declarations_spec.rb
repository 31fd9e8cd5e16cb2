# frozen_string_literal: true

# Each tool is declared once, in its own file under tools/, and what a chat gets is
# made from the declarations.
RSpec.describe RubyLLM::FileStore::Tools do
  let(:lib) { File.expand_path('../../../../lib/ruby_llm/file_store', __dir__) }

  it 'declares each tool in its own file under tools/, named as the tool' do
    expect(described_class.declared.keys).to include('list_files', 'glob_files', 'run_code')
    described_class.declared.each do |name, tool|
      expect(tool.name).to eq("RubyLLM::FileStore::Tools::#{name.split('_').map(&:capitalize).join}")
      expect(Object.const_source_location(tool.name).first).to eq(File.join(lib, 'tools', "#{name}.rb"))
    end
  end

  it 'offers the five file tools by default, in the order the model has always seen them' do
    expect(described_class.by_default.map(&:tool_name)).to eq(%w[list_files read_file search_files write_file edit_file])
    expect(described_class.declared.values.group_by(&:offered).transform_values { |tools| tools.map(&:tool_name).sort })
      .to eq(by_default: %w[edit_file list_files read_file search_files write_file], on_request: %w[glob_files],
             with_code_execution: %w[run_code])
  end

  it 'shows only read_file results until the next question' do
    expect(described_class.declared.values.select(&:shown_until_next_question?).map(&:tool_name)).to eq(%w[read_file])
    expect(described_class.shown_until_next_question?('read_file')).to be(true)
    expect(described_class.shown_until_next_question?(:list_files)).to be(false)
    expect(described_class.shown_until_next_question?(nil)).to be(false)
  end

  it 'names the tools a chat may ask for, and refuses any other name, saying which' do
    expect(described_class.on_request([:glob_files, 'glob_files'])).to eq([RubyLLM::FileStore::Tools::GlobFiles])
    expect(described_class.on_request(nil)).to eq([])
    expect { described_class.on_request([:nope]) }
      .to raise_error(ArgumentError, 'extra_tools: :nope is not a tool a chat can ask for; there are glob_files')
  end

  it 'refuses a declaration it could not make a tool of, naming the class' do
    declare = ->(**options) { Class.new(RubyLLM::FileStore::Tools::Base) { tool(*options.delete(:name), **options) } }
    base = { offered: :on_request }
    expect { declare.call(name: 'Glob Files', **base) }.to raise_error(ArgumentError, /lower case words and _, not "Glob Files"/)
    expect { declare.call(name: 'x', **base, offered: :always) }.to raise_error(ArgumentError, /offered is one of by_default/)
    expect { declare.call(name: 'x', **base, shown: :once) }.to raise_error(ArgumentError, /shown is one of always/)
    expect { declare.call(name: 'x', **base, offered: :by_default) }.to raise_error(ArgumentError, /needs its order/)
    expect { declare.call(name: 'read_file', **base) }.to raise_error(ArgumentError, 'two tools are named read_file')
    expect(described_class.declared.keys).not_to include('x')
  end

  # ruby_llm checks the model's arguments against execute's keywords: each tool's
  # must be the parameters it declares, the required ones without a default.
  it 'takes in execute the parameters each tool declares, as the model reads them' do
    described_class.declared.each_value do |tool|
      schema = RubyLLM::Tool::SchemaDefinition.from_parameters(
        tool.respond_to?(:declared_parameters) ? tool.declared_parameters : tool.parameters
      ).json_schema
      keywords = tool.instance_method(:execute).parameters
      expect(keywords.map { |_, name| name.to_s }).to eq(schema['properties'].keys), tool.tool_name
      required = keywords.select { |kind, _| kind == :keyreq }.map { |_, name| name.to_s }
      expect(required).to eq(schema['required']), tool.tool_name
    end
  end
end
