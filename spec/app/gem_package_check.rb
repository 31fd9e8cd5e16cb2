# frozen_string_literal: true

require 'English'
require 'fileutils'
require 'json'
require 'open3'
require 'pty'
require 'rbconfig'
require_relative 'support/gem_builds'
require_relative 'support/without_rust'

# The two gems as a user gets them, made by `rake native gem`: the precompiled platform
# gem, installed with `gem install --local` on this machine with Rust and libclang
# hidden (WithoutRust), and the source gem, which runs extconf.rb and cargo as RubyGems
# does. CARGO_TARGET_DIR points the source gem's build at the checkout's target/ so
# only the local crates compile (the dependencies are the ones Cargo.lock names either
# way); the Makefile keeps a target dir it was given. It links through the checkout's
# linker (.cargo/config.toml, which the gem does not carry): cargo keeps the linker in
# each crate's fingerprint, and another would make the checkout's next build start over.
RSpec.describe 'the installed gem' do
  include TmpDirHelper

  root = GemBuilds::ROOT
  native = /\.(so|bundle|dylib|o|a|dll)\z/

  def run!(*command, **options)
    output, status = Open3.capture2e(*command, **options)
    expect(status).to be_success, "#{command.join(' ')}\n#{output}"
    output
  end

  # The installed-gem check (a folder store, a search, a conversion) run by +ruby_env+.
  def expect_installed_gem_to_work(ruby_env, wrap: ->(argv) { argv })
    run!(ruby_env, *wrap.call([RbConfig.ruby, '-e', 'require "ruby_llm/file_store"']))
    seen = JSON.parse(run!(ruby_env, *wrap.call([RbConfig.ruby, GemBuilds::CHECK, File.join(tmp_dir, 'store')]))
                        .lines.last)
    expect(seen['list']).to eq(['notes/plan.md', 'page.html'])
    expect(seen['search']).to eq("notes/plan.md:2: Ship it on Friday\npage.html:2: Revenue grew")
    expect(seen['text']).to eq("# Quarterly report\nRevenue grew\n")
    expect(seen['pdf']).to eq('report.pdf:3: Revenue grew 12 percent in the third quarter, led by the northern region.')
    expect_worker(seen['worker'])
    seen
  end

  # The page was converted by the convert worker the gem installed beside its library.
  def expect_worker(path)
    expect(File.basename(path)).to eq('file_store_convert')
    expect(File.executable?(path)).to be(true)
  end

  def gem_dir(home, name)
    Dir[File.join(home, 'gems', name)].first || raise("#{name} is not installed in #{home}")
  end

  describe 'the precompiled platform gem' do
    let(:gem_file) { GemBuilds.gems.fetch(:platform) }
    let(:spec) { Gem::Package.new(gem_file).spec }

    it 'holds one stripped library per Ruby version and nothing else native, for this platform and those Rubies' do
      expect(File.basename(gem_file)).to eq("ruby_llm-file_store-#{spec.version}-x86_64-linux.gem")
      expect(spec.platform.to_s).to eq(GemBuilds.platform)
      expect(spec.extensions).to eq([])
      expect(spec.required_ruby_version).to be_satisfied_by(Gem::Version.new(RUBY_VERSION))
      expect(spec.required_ruby_version).not_to be_satisfied_by(Gem::Version.new('3.0.7'))
      expect(spec.required_ruby_version).not_to be_satisfied_by(Gem::Version.new('3.5.0'))
      expect(spec.metadata.values_at('homepage_uri', 'source_code_uri', 'changelog_uri'))
        .to all(start_with('https://github.com/ruby-llm-file-store/ruby_llm-file_store'))

      files = GemBuilds.files(gem_file)
      libraries = GemBuilds.minors.map { |minor| "lib/ruby_llm/file_store/#{minor}/file_store_native.so" }
      expect(files.grep(native).sort).to eq(libraries)
      expect(files).to include('lib/ruby_llm/file_store/file_store_convert')
      expect(files.grep(%r{\A(ext|src|crates)/|\ACargo\.|\.rs\z|Makefile|extconf})).to eq([])
      expect(files).to include('CHANGELOG.md', 'README.md', 'LICENSE', 'lib/ruby_llm/file_store.rb')

      Gem::Package.new(gem_file).extract_files(tmp_dir)
      [*libraries, 'lib/ruby_llm/file_store/file_store_convert'].each do |library|
        expect_portable_library(File.join(tmp_dir, library))
      end
      # The source gem's message names where the precompiled gem exists.
      expect(RubyLLMFileStoreBuild::Toolchain::PRECOMPILED)
        .to eq("#{spec.platform} (Ruby #{GemBuilds.minors.join(', ')})")
    end

    # Stripped, needing no newer glibc than the Rakefile promises, and linked to
    # nothing but the C library (no libruby, which a static Ruby lacks, no libclang).
    def expect_portable_library(library)
      expect(run!('file', library)).to include('stripped').and(not_include('not stripped'))
      promised = File.read(File.join(GemBuilds::ROOT, 'Rakefile'))[/^GLIBC = '([\d.]+)'/, 1]
      needed = run!('objdump', '-T', library).scan(/GLIBC_([\d.]+)/).flatten.map { |v| Gem::Version.new(v) }.max
      expect(needed).to be <= Gem::Version.new(promised)
      linked = run!('readelf', '-d', library).scan(/\(NEEDED\).*\[(.+)\]/).flatten
      expect(linked - %w[libc.so.6 libm.so.6 libgcc_s.so.1 ld-linux-x86-64.so.2 libpthread.so.0 libdl.so.2]).to eq([])
    end

    it 'installs with gem install --local without Rust or libclang, then loads, stores, searches and converts' do
      expect(WithoutRust.found_inside).to eq([]) # no cargo, rustc, llvm-config, clang or libclang in there
      home = File.join(tmp_dir, 'home')
      ruby_llm = GemBuilds.ruby_llm_gem(tmp_dir)
      # --local finds the ruby_llm dependency among the .gem files in the current folder.
      FileUtils.cp(gem_file, tmp_dir)
      install = run!(WithoutRust.env('GEM_HOME' => home, 'GEM_PATH' => home),
                     *WithoutRust.command('gem', 'install', '--local', '--no-document', File.basename(gem_file)),
                     chdir: tmp_dir)
      expect(install).to include("Successfully installed #{File.basename(gem_file, '.gem')}",
                                 "Successfully installed #{File.basename(ruby_llm, '.gem')}")
      expect(install).not_to include('Building native extensions')
      installed = gem_dir(home, "ruby_llm-file_store-#{spec.version}-x86_64-linux")
      expect(Dir.glob('**/*', base: installed).grep(native).sort)
        .to eq(GemBuilds.minors.map { |minor| "lib/ruby_llm/file_store/#{minor}/file_store_native.so" })
      expect(Dir.glob('**/*', base: File.join(home, 'extensions'))).to eq([])

      ruby_env = WithoutRust.env(GemBuilds.ruby_env(home))
      seen = expect_installed_gem_to_work(ruby_env, wrap: ->(argv) { WithoutRust.command(*argv) })
      expect(seen['native']).to eq([File.join(installed, "lib/ruby_llm/file_store/#{GemBuilds.minor}/" \
                                                         'file_store_native.so')])
      expect(seen['worker']).to eq(File.join(installed, 'lib/ruby_llm/file_store/file_store_convert'))
      expect(seen['ruby_llm']).to eq([File.join(gem_dir(home, 'ruby_llm-*'), 'lib/ruby_llm.rb')])
    end

    it 'says what to do where its library does not load here, or is for other Ruby versions only' do
      Gem::Package.new(gem_file).extract_files(tmp_dir)
      library = File.join(tmp_dir, 'lib/ruby_llm/file_store', GemBuilds.minor, 'file_store_native.so')
      File.write(library, 'not a shared library')
      expect(load_error).to include("precompiled library does not load on this machine (#{library}: ",
                                    'gem install ruby_llm-file_store --platform ruby')

      FileUtils.mv(File.dirname(library), File.join(tmp_dir, 'lib/ruby_llm/file_store/3.0'))
      others = (GemBuilds.minors - [GemBuilds.minor] + ['3.0']).sort
      expect(load_error).to include("holds builds for Ruby #{others.join(', ')}, not #{RUBY_VERSION}",
                                    'force_ruby_platform true')
    end

    # The gem's lib/ first, then ruby_llm, which it requires, as the specs find it.
    def load_error
      rubylib = [File.join(tmp_dir, 'lib'), *RubyLLMPath.libs].join(':')
      output, status = Open3.capture2e(WithoutRust.env('RUBYLIB' => rubylib), RbConfig.ruby, '-e',
                                       'require "ruby_llm/file_store"')
      expect(status).not_to be_success
      output
    end
  end

  describe 'the source gem' do
    let(:gem_file) { GemBuilds.gems.fetch(:source) }

    it 'compiles on install, saying so on the terminal each minute, holds one stripped library and works' do
      build = run!('gem', 'build', 'ruby_llm-file_store.gemspec', '-o', File.join(tmp_dir, 'built.gem'), chdir: root)
      expect(build).not_to match(/WARNING/)
      expect(GemBuilds.files(gem_file)).to eq(GemBuilds.files(File.join(tmp_dir, 'built.gem')))

      home = File.join(tmp_dir, 'home')
      GemBuilds.ruby_llm_gem(tmp_dir)
      terminal, status = on_a_terminal({ 'CARGO_TARGET_DIR' => File.join(root, 'target'), 'GEM_HOME' => home,
                                         **GemBuilds.checkout_linker },
                                       'gem', 'install', '--local', '--no-document', gem_file)
      expect(status).to be_success, terminal
      expect_progress_on(terminal)
      expect(terminal).to include("precompiled gem exists for #{RubyLLMFileStoreBuild::Toolchain::PRECOMPILED}")

      gem_dir = gem_dir(home, "ruby_llm-file_store-#{Gem::Package.new(gem_file).spec.version}")
      expect_no_build_leftovers(gem_dir)
      expect_worker_beside(expect_one_library(home, gem_dir))
      seen = expect_installed_gem_to_work(GemBuilds.ruby_env(home))
      expect([File.join(home, 'extensions'), gem_dir].any? { |dir| seen['native'].first.start_with?(dir) }).to be(true)
      expect(seen['ruby_llm']).to eq([File.join(gem_dir(home, 'ruby_llm-*'), 'lib/ruby_llm.rb')])

      expect_contract_failure_at_its_line(gem_dir)
    end

    # PTY.spawn gives the command a terminal of its own: what a user at one sees. It
    # runs in tmp_dir, where gem install --local finds the ruby_llm gem.
    def on_a_terminal(env, *command)
      output = +''
      Dir.chdir(tmp_dir) do
        PTY.spawn(env, *command) do |reader, _writer, pid|
          begin
            reader.each_line { |line| output << line }
          rescue Errno::EIO
            nil # the command ended and closed the terminal
          end
          Process.wait(pid)
        end
      end
      [output, $CHILD_STATUS]
    end

    # The start line, a line for each whole minute cargo took, then the finish, all
    # while RubyGems still says "Building native extensions" (it holds the build's own
    # output back until the end).
    def expect_progress_on(terminal)
      lines = terminal.lines.map(&:strip)
      at = progress_lines(lines)
      expect(at.values).to all(be_an(Integer)), terminal
      expect(at.values).to eq(at.values.sort), terminal
      took = lines[at[:finished]][/in (\d+) min/, 1].to_i
      # A tick due in the instant cargo finishes may lose the race to it.
      ticks = lines[at[:started]..at[:finished]].grep(/cargo is still compiling: \d+ min \d+ s so far, \d+ crates/)
      expect(ticks.size).to be_between([took - 1, 0].max, took), terminal
    end

    def progress_lines(lines)
      { building: lines.index { |line| line.start_with?('Building native extensions') },
        started: lines.index { |line| line.start_with?('ruby_llm-file_store: compiling the native extension') },
        finished: lines.index { |line| line.start_with?('ruby_llm-file_store: cargo finished in ') },
        installed: lines.index { |line| line.start_with?('Successfully installed ruby_llm-file_store') } }
    end

    def expect_one_library(home, gem_dir)
      libraries = Dir[File.join(home, 'extensions', '**', 'file_store_native.so')]
      expect(libraries.size).to eq(1)
      # RubyGems 3.3 copies an installed extension into lib/ too (Gem.install_extension_in_lib).
      in_lib = Dir[File.join(gem_dir, 'lib', '**', '*.so')]
      expect(in_lib.size).to eq(Gem.install_extension_in_lib ? 1 : 0)
      expect(in_lib.map { |path| File.binread(path) }.uniq - [File.binread(libraries.first)]).to eq([])
      expect(run!('file', *libraries)).to include('stripped').and(not_include('not stripped'))
      libraries.first
    end

    def expect_worker_beside(library)
      workers = Dir[File.join(File.dirname(library, 4), '**', 'file_store_convert')]
      expect(workers).to eq([File.join(File.dirname(library), 'file_store_convert')])
      expect(run!('file', *workers)).to include('stripped').and(not_include('not stripped'))
    end

    def expect_no_build_leftovers(gem_dir)
      files = Dir.glob('**/*', File::FNM_DOTMATCH, base: gem_dir).reject { |path| File.directory?(File.join(gem_dir, path)) }
      expect(files.grep(%r{(^|/|_)tests\.rs$})).to eq([])
      expect(files.grep(%r{^ext/}).sort).to eq(
        Dir.glob('ext/ruby_llm_file_store/{*.rb,Cargo.toml,src/**/*.rs}', base: GemBuilds::ROOT).sort
      )
      expect(files.grep(/\.(so|o|bundle|dylib)$|Makefile|mkmf\.log/).reject { |path| path.start_with?('lib/') }).to eq([])
    end

    it 'stops at once without cargo, with one line saying what to install and that a precompiled gem exists' do
      output = failed_install(WithoutRust.command('gem', 'install', '--local', '--install-dir', File.join(tmp_dir, 'h'),
                                                  '--ignore-dependencies', '--no-document', gem_file))
      expect(output).to include(RubyLLMFileStoreBuild::Toolchain.no_cargo({}))
      expect(output.lines.grep(/ruby_llm-file_store:/).size).to eq(1)
      expect(output).not_to include('cargo: not found')
    end

    it 'stops at once without libclang, with one line saying what to install' do
      output = failed_install(WithoutRust.command('gem', 'install', '--local', '--install-dir', File.join(tmp_dir, 'h'),
                                                  '--ignore-dependencies', '--no-document', gem_file, keep_rust: true),
                              env: ENV.to_h.merge('LIBCLANG_PATH' => nil))
      expect(output).to include("ruby_llm-file_store: libclang was not found, and the rb-sys crate reads Ruby's " \
                                'headers with it: install libclang (libclang-dev on Debian and Ubuntu')
      expect(output.lines.grep(/ruby_llm-file_store:/).size).to eq(1)
    end

    def failed_install(command, env: WithoutRust.env)
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      output, status = Open3.capture2e(env, *command)
      expect(status).not_to be_success
      expect(Process.clock_gettime(Process::CLOCK_MONOTONIC) - started).to be < 30
      expect(output).to include('ERROR: Failed to build gem native extension.')
      output
    end
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
    output, = Open3.capture2e({ 'RUBYLIB' => [File.join(gem_dir, 'lib'), *RubyLLMPath.libs].join(':') }, 'rspec',
                              'reversed_store_spec.rb', '-e', 'lists every file sorted by path', chdir: project)
    expect(output).to include('1 example, 1 failure')
    expect(output).to include('Failure/Error: expect(store.list.map(&:path)).to eq(%w[a.txt b.txt rep.txt')
    expect(output).to match(%r{# \S*#{Regexp.escape(File.basename(gem_dir))}/lib/ruby_llm/file_store/rspec\.rb:\d+})
  end

  RSpec::Matchers.define_negated_matcher :not_include, :include
end
