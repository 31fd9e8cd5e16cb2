# frozen_string_literal: true

# glob_files: a tool in one file, offered only when the application asks for it.
RSpec.describe RubyLLM::FileStore::Tools::GlobFiles do
  let(:tool) { described_class.new(store) }
  let(:paths) { %w[README.md notes/plan.md notes/old/2023.md reports/2024-q1.csv reports/2024-q2.xlsx] }

  def glob(pattern)
    tool.call(pattern:)
  end

  def matched(pattern)
    glob(pattern).lines.filter_map { |line| line[/\A(\S+) \(/, 1] }
  end

  shared_examples 'globs over the store' do
    before { paths.each { |path| store.write(path, "content of #{path}") } }

    it 'lists the files whose paths match, sorted, each as list_files shows it' do
      expect(glob('notes/*.md')).to eq('notes/plan.md (text/markdown, 24 bytes)')
      expect(matched('**/*.md')).to eq(%w[README.md notes/old/2023.md notes/plan.md])
      expect(matched('*.md')).to eq(%w[README.md])
    end

    it 'reads {a,b} as either, ** as any folders, a last ** as all below, and ? and [] as fnmatch does' do
      expect(matched('reports/2024-*.{csv,xlsx}')).to eq(%w[reports/2024-q1.csv reports/2024-q2.xlsx])
      expect(matched('{notes,reports}/**')).to eq(%w[notes/old/2023.md notes/plan.md reports/2024-q1.csv
                                                     reports/2024-q2.xlsx])
      expect(matched('reports/2024-q?.csv')).to eq(%w[reports/2024-q1.csv])
      expect(matched('notes/old/20[0-2][0-9].md')).to eq(%w[notes/old/2023.md])
      expect(matched('**/{plan,2023}.md')).to eq(%w[notes/old/2023.md notes/plan.md])
    end

    it 'says when nothing matches' do
      expect(glob('**/*.pdf')).to eq('No files match "**/*.pdf".')
    end
  end

  context 'on a Memory store' do
    let(:store) { RubyLLM.file_store.memory }

    it_behaves_like 'globs over the store'
  end

  context 'on a Directory store' do
    include TmpDirHelper

    let(:store) { RubyLLM.file_store.directory(File.join(tmp_dir, 'store')) }

    it_behaves_like 'globs over the store'
  end

  context 'on an Active Storage store', :rails do
    let(:store) { RubyLLM.file_store.active_storage(Chat.create!(model_id: 'gpt-4.1-mini')) }

    it_behaves_like 'globs over the store'
  end

  context 'on a store that keeps hidden files' do
    let(:store) { RubyLLM.file_store.memory }

    it 'matches a leading dot like any character: the store hides nothing' do
      %w[.env notes/.draft.md notes/plan.md].each { |path| store.write(path, 'x') }
      expect(matched('**/*')).to eq(%w[.env notes/.draft.md notes/plan.md])
      expect(matched('notes/*.md')).to eq(%w[notes/.draft.md notes/plan.md])
    end
  end

  context 'with bad patterns' do
    let(:store) { RubyLLM.file_store.memory.tap { |store| store.write('a.md', 'a') } }

    it 'answers each with an error the model reads, naming what is wrong' do
      expect(glob('')).to eq('Error: pattern is empty: give a glob such as "**/*.md"')
      expect(glob('/etc/*')).to eq("Error: pattern \"/etc/*\" leaves the chat's files: paths are relative, " \
                                   'with no leading / and no .. parts')
      expect(glob('notes/../../*')).to start_with('Error: pattern "notes/../../*" leaves the chat\'s files')
      expect(glob('*.{md,txt')).to eq('Error: pattern "*.{md,txt" has a { without its }')
      expect(glob('*.md}')).to eq('Error: pattern "*.md}" has a } without its {')
      expect(glob("a\u0000.md")).to eq('Error: pattern "a\\u0000.md" has a control character')
      expect(glob("\xff*".b)).to eq('Error: pattern is not valid UTF-8: give a glob of text')
    end

    it 'matches a brace or star escaped with a backslash as itself' do
      store.write('odd{1}.md', 'x')
      expect(matched('odd\{1\}.md')).to eq(['odd{1}.md'])
      expect(matched('\*.md')).to eq([])
    end
  end

  context 'at its ceilings' do
    let(:store) { RubyLLM.file_store.memory }

    it "lists at most #{described_class::MAX_PATHS} paths and says how many more match" do
      (described_class::MAX_PATHS + 5).times { |n| store.write(format('f/%05d.txt', n), '') }
      lines = glob('f/*.txt').lines
      expect(lines.size).to eq(described_class::MAX_PATHS + 1)
      expect(lines[-2]).to start_with(format('f/%05d.txt', described_class::MAX_PATHS - 1))
      expect(lines.last).to eq('[5 more files match. Narrow the pattern.]')
    end

    it "refuses a pattern over #{described_class::MAX_PATTERN_CHARS} characters" do
      store.write('a.md', 'a')
      expect(glob('*' * described_class::MAX_PATTERN_CHARS)).to eq('a.md (text/markdown, 1 byte)')
      expect(glob('*' * (described_class::MAX_PATTERN_CHARS + 1)))
        .to eq("Error: pattern is #{described_class::MAX_PATTERN_CHARS + 1} characters, over the " \
               "#{described_class::MAX_PATTERN_CHARS} a glob may be")
    end

    it "refuses {} that expand past #{described_class::MAX_ALTERNATIVES} patterns, before expanding them" do
      store.write('ab.md', 'a')
      expect(matched("#{'{a,b}' * 6}.md")).to eq([]) # 64 patterns
      expect(glob('{a,b}{a,b}.md')).to eq('ab.md (text/markdown, 1 byte)')
      # 2**40 patterns if expanded: refused at the first group past the ceiling.
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      expect(glob("#{'{a,b}' * 40}.md")).to match(/\AError: pattern .* has over 100 alternatives in its \{\}/)
      expect(Process.clock_gettime(Process::CLOCK_MONOTONIC) - started).to be < 0.5
      expect(glob("{#{(1..101).to_a.join(',')}}")).to match(/has over 100 alternatives/)
    end

    it 'stops matching after its time limit, with an error naming the pattern' do
      stub_const("#{described_class}::MAX_SECONDS", 0.2)
      # Deep paths and a pattern of many ** cost their lengths multiplied, per file:
      # about 30 ms a file here, 6 seconds for the 200 without the limit. The store
      # is one of an application's, which glob_files reaches through list alone.
      deep = Array.new(1000, 'a').join('/')
      files = Array.new(200) { |n| RubyLLM::StoredFile.new(path: "#{deep}/#{n}", byte_size: 0, content_type: 'text/plain') }
      listing = Class.new(RubyLLM::FileStore) { define_method(:list) { |_prefix = nil| files } }
      tool = described_class.new(listing.new)
      pattern = "#{'**/*a' * 150}b"
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      expect(tool.call(pattern:)).to match(%r{\AError: matching "(\*\*/\*a)+.*took over 0.2 seconds \(\d+ of 200 files\)})
      expect(Process.clock_gettime(Process::CLOCK_MONOTONIC) - started).to be < 2
    end
  end

  describe 'in a chat', :ruby_llm do
    let(:chat) { RubyLLM::Chat.new(model: 'gpt-4.1-nano', provider: :openai, assume_model_exists: true) }
    let(:default_tools) { %i[list_files read_file search_files write_file edit_file] }

    before { RubyLLM.configure { |config| config.openai_api_key ||= 'test' } }

    it 'is offered only when the application asks, after the five tools, which do not change' do
      expect(chat.with_file_store(RubyLLM.file_store.memory).tools.keys).to eq(default_tools)
      chat.with_file_store(RubyLLM.file_store.memory, extra_tools: [:glob_files])
      expect(chat.tools.keys).to eq(default_tools + [:glob_files])
      chat.file_store.write('docs/a.md', 'a')
      expect(chat.tools[:glob_files].call({ 'pattern' => '**/*.md' })).to eq('docs/a.md (text/markdown, 1 byte)')
      expect(chat.tools[:glob_files].call({})).to eq({ error: 'Invalid tool arguments: missing keyword: pattern' })
    end

    it 'goes with the store: another store without it, or none, takes it away' do
      chat.with_file_store(RubyLLM.file_store.memory, extra_tools: ['glob_files'])
      expect(chat.with_file_store(RubyLLM.file_store.memory).tools.keys).to eq(default_tools)
      chat.with_file_store(RubyLLM.file_store.memory, extra_tools: [:glob_files])
      expect(chat.with_file_store(nil).tools).to be_empty
    end

    it 'refuses an unknown tool name, naming it, and leaves the chat as it was' do
      store = RubyLLM.file_store.memory
      chat.with_file_store(store)
      expect { chat.with_file_store(RubyLLM.file_store.memory, extra_tools: %i[glob_files grep_files]) }
        .to raise_error(ArgumentError, 'extra_tools: :grep_files is not a tool a chat can ask for; there are glob_files')
      expect { chat.with_file_store(extra_tools: [:read_file]) }.to raise_error(ArgumentError, /:read_file is not/)
      expect { chat.with_file_store(extra_tools: [:run_code]) }.to raise_error(ArgumentError, /:run_code is not/)
      expect(chat.file_store).to equal(store)
      expect(chat.tools.keys).to eq(default_tools)
    end

    it 'is given to each chat an agent builds when the agent declares it' do
      agent = Class.new(RubyLLM::Agent) { file_store extra_tools: [:glob_files] }
      chat = agent.chat(model: 'gpt-4.1-nano', provider: :openai, assume_model_exists: true)
      expect(chat.tools.keys).to eq(default_tools + [:glob_files])
    end
  end

  describe 'on an acts_as_chat record', :acts_as_chat, :rails, :ruby_llm do
    include_context 'a scripted server for chat records'

    let(:conversation) do
      Conversation.create!(model: ScriptedLLMServer::MODEL, provider: :openai, assume_model_exists: true, context:)
    end

    # The record loaded afresh, as a job loads it, talking to the scripted server.
    def found(klass)
      klass.find(conversation.id).tap { |record| record.context = context }
    end

    it 'is offered when the record or its class asks, and kept when the record builds its chat again' do
      conversation.with_file_store(extra_tools: [:glob_files])
      conversation.file_store.write('notes/a.md', 'a')
      expect(conversation.to_llm.tools[:glob_files].call({ 'pattern' => 'notes/*' }))
        .to eq('notes/a.md (text/markdown, 1 byte)')
      expect(found(Conversation).to_llm.tools).not_to include(:glob_files)

      stub_const('GlobbingChat', Class.new(Conversation) { file_store extra_tools: [:glob_files] })
      record = found(GlobbingChat)
      expect(record.to_llm.tools.keys.last).to eq(:glob_files)
      expect(record.to_llm.tools[:glob_files].call({ 'pattern' => '**/*.md' })).to eq('notes/a.md (text/markdown, 1 byte)')
    end
  end
end
