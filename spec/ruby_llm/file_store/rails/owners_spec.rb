# frozen_string_literal: true

RSpec.describe 'RubyLLM::ActiveRecord::FileStore owners', :rails do
  let(:chat) { Chat.create!(model_id: 'gpt-4.1-mini') }
  let(:dana) { User.create!(name: 'Dana') }
  let(:eli) { User.create!(name: 'Eli') }
  let(:shared) { RubyLLM.file_store.active_storage(chat) }
  let(:danas) { RubyLLM.file_store.active_storage(chat, owner: dana) }
  let(:elis) { RubyLLM.file_store.active_storage(chat, owner: eli) }

  it "sees the owner's files and the shared ones, the owner's first; a store without one sees only shared" do
    shared.write('brief.md', 'shared brief')
    shared.write('plan.md', 'shared plan')
    danas.write('plan.md', "Dana's plan")
    elis.write('notes.md', "Eli's notes")

    expect(danas.list.map(&:path)).to eq(%w[brief.md plan.md])
    expect(danas.read('plan.md')).to eq("Dana's plan")
    expect(elis.read('plan.md')).to eq('shared plan')
    expect(shared.list.map(&:path)).to eq(%w[brief.md plan.md])
    expect(danas['notes.md']).to be_nil
    expect { danas.read('notes.md') }.to raise_error(RubyLLM::FileNotFoundError, 'No file at notes.md')
    expect(elis.list.map(&:path)).to eq(%w[brief.md notes.md plan.md])
  end

  it 'writes for its owner, leaving the shared file alone' do
    shared.write('plan.md', 'shared plan')
    danas.write('plan.md', "Dana's plan")
    expect(RubyLLM::ActiveRecord::ChatFile.where(chat_id: chat.id, path: 'plan.md').pluck(:owner_type, :owner_id, :owner_key))
      .to contain_exactly([nil, nil, ''], ['User', dana.id, "User/#{dana.id}"])
    expect(shared.read('plan.md')).to eq('shared plan')
  end

  it "deletes the owner's file first, and the shared one shows again" do
    shared.write('plan.md', 'shared plan')
    danas.write('plan.md', "Dana's plan")
    expect(danas.delete('plan.md').digest).to eq(Digest::SHA256.hexdigest("Dana's plan"))
    expect(danas.read('plan.md')).to eq('shared plan')
  end

  [%w[shared owner], %w[owner shared]].each do |first, second|
    it "keeps a shared file and an owner's folder of the same name, the #{first}'s written first" do
      writes = { 'shared' => -> { shared.write('dir', 'shared file') },
                 'owner' => -> { danas.write('dir/x.md', "Dana's note") } }
      writes.fetch(first).call
      writes.fetch(second).call
      expect(danas.list.map(&:path)).to eq(%w[dir dir/x.md])
      expect(danas.read('dir')).to eq('shared file')
      expect(danas.list('dir').map(&:path)).to eq(%w[dir/x.md])
      expect(shared.list.map(&:path)).to eq(%w[dir])
      expect(elis.list.map(&:path)).to eq(%w[dir])
    end

    it "keeps an owner's file and a shared folder of the same name, the #{first}'s written first" do
      writes = { 'shared' => -> { shared.write('dir/x.md', 'shared note') },
                 'owner' => -> { danas.write('dir', "Dana's file") } }
      writes.fetch(first).call
      writes.fetch(second).call
      expect(danas.list.map(&:path)).to eq(%w[dir dir/x.md])
      expect(danas.read('dir')).to eq("Dana's file")
      expect(shared.list.map(&:path)).to eq(%w[dir/x.md])
    end
  end

  it "still refuses a file and a folder of one name within one owner's files" do
    danas.write('dir', 'file')
    expect { danas.write('dir/x.md', 'note') }.to raise_error(ArgumentError, 'dir is a file, not a folder')
    shared.write('notes/a.md', 'a')
    expect { shared.write('notes', 'file') }.to raise_error(ArgumentError, 'notes is a folder, not a file')
  end

  it 'keeps owners of different types with the same id apart' do
    team = Team.create!(name: 'Ops')
    user = User.find_or_create_by!(id: team.id) { |found| found.name = 'Same id' }
    RubyLLM.file_store.active_storage(chat, owner: team).write('t.txt', 'team')
    expect(RubyLLM.file_store.active_storage(chat, owner: user)['t.txt']).to be_nil
  end

  it 'keeps one row per chat, owner and path, for shared files too' do
    shared.write('a.txt', 'one')
    shared.write('a.txt', 'two')
    expect(RubyLLM::ActiveRecord::ChatFile.where(chat_id: chat.id, path: 'a.txt').count).to eq(1)
    row = RubyLLM::ActiveRecord::ChatFile.find_by!(chat_id: chat.id, path: 'a.txt')
    duplicate = row.dup.tap { |copy| copy.file = row.file.blob }
    expect { duplicate.save! }.to raise_error(ActiveRecord::RecordNotUnique)
  end

  # Many owners, many paths, random writes and deletes from every store; after each
  # operation every store's view must equal what a model of the rules says, and no
  # store may ever show content another owner wrote.
  it 'never shows a store a file it should not see (randomised)', :slow do
    seed = RSpec.configuration.seed
    random = Random.new(seed)
    users = Array.new(4) { |i| User.create!(name: "u#{i}") }
    owners = [nil] + users + [Team.create!(name: 'team')]
    other_chat = Chat.create!(model_id: 'other')
    RubyLLM.file_store.active_storage(other_chat).write('a.txt', 'other chat')
    paths = %w[a.txt b.md notes notes/a.txt notes/b.txt notes/deep/c.txt reports/q3.pdf README]
    stores = owners.to_h { |owner| [key(owner), RubyLLM.file_store.active_storage(chat, owner:)] }
    model = {}
    tally = Hash.new(0)
    leaks = []

    200.times do |step|
      writer = stores.keys.sample(random:)
      path = paths.sample(random:)
      if random.rand < 0.75
        content = "#{writer}|#{path}|#{step}"
        refused = refusal(model, writer, path)
        if refused
          expect { stores[writer].write(path, content) }.to raise_error(ArgumentError, refused)
          tally[:refused] += 1
        else
          stores[writer].write(path, content)
          model[[writer, path]] = content
          tally[:writes] += 1
        end
      else
        expected = visible(model, writer)[path]
        deleted = stores[writer].delete(path) unless expected.nil? && folder?(visible(model, writer), path)
        if expected
          owner_of = model.key?([writer, path]) ? writer : ''
          model.delete([owner_of, path])
          expect(deleted.digest).to eq(Digest::SHA256.hexdigest(expected))
        end
        tally[:deletes] += 1
      end

      stores.each do |owner_key, store|
        view = visible(model, owner_key)
        listed = store.list.to_h { |file| [file.path, store.read(file.path)] }
        (paths - listed.keys).each { |missing| expect(store[missing]).to be_nil }
        listed.each_value do |seen|
          written_by = seen.split('|').first
          leaks << [owner_key, seen] unless ['', owner_key].include?(written_by)
        end
        expect(listed).to eq(view), "step #{step}, store #{owner_key.inspect}, seed #{seed}"
        expect(store.list('notes').map(&:path)).to eq(view.keys.grep(%r{\Anotes/}).sort)
      end
      tally[:checks] += stores.size
    end

    expect(RubyLLM.file_store.active_storage(other_chat).list.map(&:path)).to eq(['a.txt'])
    summary = "owner isolation: #{paths.size} paths, #{owners.size} owners (nil, 4 users, 1 team), " \
              "#{tally[:writes]} writes, #{tally[:refused]} refused writes, #{tally[:deletes]} deletes, " \
              "#{tally[:checks]} store views checked, #{model.size} files at the end, #{leaks.size} leaks (seed #{seed})"
    RSpec.configuration.reporter.message(summary)
    expect(leaks).to eq([])
  end

  def key(owner)
    RubyLLM::ActiveRecord::ChatFile.key_for(owner)
  end

  # The files a store of +owner_key+ sees: shared ones, replaced by its own.
  def visible(model, owner_key)
    files = model.select { |(owner, _), _| owner == '' }.to_h { |(_, path), content| [path, content] }
    model.each { |(owner, path), content| files[path] = content if owner == owner_key }
    files.sort.to_h
  end

  def folder?(files, path)
    files.keys.any? { |found| found.start_with?("#{path}/") }
  end

  # A file and a folder of one name clash only among one owner's own files.
  def refusal(model, owner_key, path)
    files = model.select { |(owner, _), _| owner == owner_key }.to_h { |(_, found), content| [found, content] }
    return "#{path} is a folder, not a file" if folder?(files, path)

    parts = path.split('/')[0...-1]
    parent = parts.each_index.map { |i| parts[0..i].join('/') }.find { |folder| files.key?(folder) }
    "#{parent} is a file, not a folder" if parent
  end
end
