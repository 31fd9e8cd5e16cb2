# frozen_string_literal: true

require 'fileutils'
require 'open3'
require 'rbconfig'

# The gem as a user gets it: gem build, then gem install from the .gem, which runs
# extconf.rb and cargo as RubyGems does. CARGO_TARGET_DIR points the build at the
# checkout's target/ so only the local crates compile (the dependencies are the ones
# Cargo.lock names either way); the Makefile keeps a target dir it was given.
RSpec.describe 'the installed gem' do
  include TmpDirHelper

  root = File.expand_path('../..', __dir__)

  def run!(*command, **options)
    output, status = Open3.capture2e(*command, **options)
    expect(status).to be_success, "#{command.join(' ')}\n#{output}"
    output
  end

  it 'holds one stripped library, no build leftovers and no Rust unit tests, and loads' do
    gem_file = File.join(tmp_dir, 'ruby_llm-file_store.gem')
    build = run!('gem', 'build', 'ruby_llm-file_store.gemspec', '-o', gem_file, chdir: root)
    expect(build).not_to match(/WARNING/)

    home = File.join(tmp_dir, 'home')
    run!({ 'CARGO_TARGET_DIR' => File.join(root, 'target') },
         'gem', 'install', '--local', '--install-dir', home, '--ignore-dependencies', '--no-document', gem_file)

    gem_dir = Dir[File.join(home, 'gems', 'ruby_llm-file_store-*')].first
    files = Dir.glob('**/*', File::FNM_DOTMATCH, base: gem_dir).reject { |path| File.directory?(File.join(gem_dir, path)) }
    expect(files.grep(%r{(^|/)tests\.rs$})).to eq([])
    expect(files.grep(%r{^ext/}).sort).to eq(
      Dir.glob('ext/ruby_llm_file_store/{extconf.rb,Cargo.toml,src/**/*.rs}', base: root).sort
    )
    expect(files.grep(/\.(so|o|bundle|dylib)$|Makefile|mkmf\.log/).reject { |path| path.start_with?('lib/') }).to eq([])

    libraries = Dir[File.join(home, 'extensions', '**', 'file_store_native.so')]
    expect(libraries.size).to eq(1)
    # RubyGems 3.3 copies an installed extension into lib/ too (Gem.install_extension_in_lib).
    in_lib = Dir[File.join(gem_dir, 'lib', '**', '*.so')]
    expect(in_lib.size).to eq(Gem.install_extension_in_lib ? 1 : 0)
    expect(in_lib.map { |path| File.binread(path) }.uniq - [File.binread(libraries.first)]).to eq([])
    expect(run!('file', libraries.first)).to include('stripped').and(not_include('not stripped'))

    loaded = run!({ 'GEM_HOME' => home, 'GEM_PATH' => home, 'RUBYLIB' => nil }, RbConfig.ruby, '-e', <<~RUBY)
      # The installed gem's load path, without activating ruby_llm (not installed here).
      $LOAD_PATH.unshift(*Gem::Specification.find_by_name("ruby_llm-file_store").full_require_paths)
      require "ruby_llm/file_store"
      store = RubyLLM.file_store.directory(#{File.join(tmp_dir, 'store').inspect})
      store.write("a.md", "# A")
      puts $LOADED_FEATURES.grep(/file_store_native/)
      puts store.list.map(&:path)
    RUBY
    library, listed = loaded.lines.map(&:chomp)
    expect([libraries.first, *in_lib]).to include(library)
    expect(listed).to eq('a.md')

    expect_contract_failure_at_its_line(gem_dir)
  end

  # A third-party store that breaks the contract, run against the installed contract:
  # the failure shows the contract's line, not one of RSpec's.
  def expect_contract_failure_at_its_line(gem_dir)
    project = File.join(tmp_dir, 'project')
    FileUtils.mkdir_p(project)
    File.write(File.join(project, 'reversed_store_spec.rb'), <<~RUBY)
      require "ruby_llm/file_store"
      require "ruby_llm/file_store/rspec"
      class ReversedStore < RubyLLM::FileStore::Memory
        def list(prefix = nil) = super.reverse
      end
      RSpec.describe(ReversedStore) { it_behaves_like("a RubyLLM file store") { let(:store) { ReversedStore.new } } }
    RUBY
    output, = Open3.capture2e({ 'RUBYLIB' => File.join(gem_dir, 'lib') }, 'rspec', 'reversed_store_spec.rb',
                              '-e', 'lists every file sorted by path', chdir: project)
    expect(output).to include('1 example, 1 failure')
    expect(output).to include('Failure/Error: expect(store.list.map(&:path)).to eq(%w[a.txt b.txt rep.txt')
    expect(output).to match(%r{# \S*#{Regexp.escape(File.basename(gem_dir))}/lib/ruby_llm/file_store/rspec\.rb:\d+})
  end

  RSpec::Matchers.define_negated_matcher :not_include, :include
end
