# frozen_string_literal: true

# search_files given a question: ranked passages as path:first-last: excerpt lines.
RSpec.describe RubyLLM::FileStore::Tools::SearchFiles do
  let(:manual) do
    filler = (1..300).map { |n| "Parameter #{n} sets how the server keeps query logs and statement statistics." }
    "# Server manual\n\n#{filler.join("\n")}\n\n## Limits\n\n" \
      "statement_timeout: abort any statement that takes more than the specified amount of time.\n"
  end

  each_shipped_store do
    let(:tool) { described_class.new(store) }

    before do
      store.write('docs/manual.md', manual)
      store.write('notes.md', "Bring sandwiches to the picnic if it is sunny.\n")
    end

    it 'ranks first the passage a question in other words asks for, where a grep of its words shows others first' do
      grep = tool.call(pattern: 'statement|query', ignore_case: true)
      expect(grep.lines.first(20).join).not_to include('abort')
      answer = tool.call(question: 'how do I abort a statement that takes too long?')
      expect(answer.lines.first).to start_with('docs/manual.md:304-306: ## Limits statement_timeout: abort any')
      expect(answer).to include('read around one with read_file (offset: its first line)')
    end

    it 'ranks within a folder or a file' do
      answer = tool.call(question: 'sandwiches for the picnic', path: 'notes.md')
      expect(answer.lines.first).to start_with('notes.md:1-1: Bring sandwiches to the picnic')
      expect(answer).not_to include('docs/manual.md')
    end

    it "finds a folder's passage that passages of other files outrank past the best 100" do
      110.times { |n| store.write("picnics/#{n}.md", "Picnic sandwiches: sandwiches, sandwiches, picnic.\n") }
      store.write('plans/week.md', "On Friday the team meets in the park, and someone brings sandwiches.\n")
      everywhere = store.rank_passages('sandwiches', limit: 100).map { |hit| hit[:path] }
      expect(everywhere).not_to include('plans/week.md')
      answer = tool.call(question: 'sandwiches', path: 'plans')
      expect(answer.lines.first).to start_with('plans/week.md:1-1: On Friday the team meets')
      expect(store.rank_passages('sandwiches', path: 'plans/').map { |hit| hit[:path] }).to eq(['plans/week.md'])
    end

    it 'says so when no passage has the words, and names a path with no files' do
      expect(tool.call(question: 'zeppelin')).to start_with('No passage matches the words of "zeppelin"')
      expect(tool.call(question: 'zeppelin', path: 'nowhere')).to start_with('Error: No file or folder at nowhere')
    end

    it 'takes exactly one of pattern and question' do
      expect(tool.call(pattern: 'a', question: 'b')).to eq('Error: give pattern or question, not both')
      expect(tool.call).to eq('Error: give a pattern (exact text, a regex) or a question (in words)')
      expect(tool.call(pattern: '', question: '')).to eq('Error: pattern is empty: say what to search for')
    end

    it 'never shows a passage of a version edited away' do
      expect(tool.call(question: 'picnic sandwiches')).to include('notes.md:1-1')
      store.write('notes.md', "Nothing here now.\n")
      expect(tool.call(question: 'picnic sandwiches')).to start_with('No passage matches')
    end
  end
end
