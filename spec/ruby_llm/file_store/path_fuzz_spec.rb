# frozen_string_literal: true

# Random path names through every store method and tool: each answers or refuses
# with a named error, the tools with a short "Error:", and nothing lands outside
# the store. Bounded (300 names a store) and seeded by RSpec's seed, so a failure
# repeats with --seed.
RSpec.describe 'Random path names', :native do
  let(:parts) do
    ['..', '.', '', '/', '\\', '.hidden', "\0", "\n", 'a' * 300, '~', 'é', "\u202e", 'a b', 'x.txt', 'CON', '*',
     '%2e%2e']
  end

  def random_name(random)
    Array.new(random.rand(1..6)) do
      random.rand < 0.6 ? parts.sample(random:) : Array.new(random.rand(1..10)) { rand_char(random) }.join
    end.join(['/', '\\', '//'].sample(random:))
  end

  def rand_char(random)
    [random.rand(32..126), random.rand(0xA0..0x2FFF)].sample(random:).chr(Encoding::UTF_8)
  end

  def calls(store, name)
    [-> { store.write(name, 'x') }, -> { store.write(name, StringIO.new('y')) }, -> { store[name] },
     -> { store.exist?(name) }, -> { store.read(name) }, -> { store.list(name) }, -> { store.delete(name) }] +
      tool_calls(store, name)
  end

  def tool_calls(store, name)
    tools = RubyLLM::FileStore::Tools
    [-> { tools::ReadFile.new(store).call(path: name) }, -> { tools::ListFiles.new(store).call(path: name) },
     -> { tools::SearchFiles.new(store).call(pattern: 'x', path: name) },
     -> { tools::WriteFile.new(store).call(path: name, content: 'z') },
     -> { tools::EditFile.new(store).call(path: name, old_text: 'z', new_text: 'w') }]
  end

  each_store do
    it 'answers or refuses by name for 300 random names, and writes nothing outside' do
      random = Random.new(RSpec.configuration.seed)
      300.times do
        name = random_name(random)
        calls(store, name).each do |call|
          result = call.call
          expect(result.length).to be < 2000 if result.is_a?(String) && result.start_with?('Error:')
        rescue ArgumentError, RubyLLM::FileNotFoundError, RubyLLM::FileStore::Error
          nil
        end
      end
      expect(Dir.children(tmp_dir) - ['store']).to be_empty
    end
  end
end
