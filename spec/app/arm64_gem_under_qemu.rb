# frozen_string_literal: true

require 'fileutils'
require 'json'
require 'open3'
require 'rubygems/package'
require 'tmpdir'
require_relative 'support/gem_builds'

# The aarch64-linux gem (`rake native PLATFORM=aarch64-linux`) as a user on an arm64
# machine gets it, run in the arm64 root (`bin/newer-ruby arm64 run`) by Debian's arm64
# Ruby 3.3 under qemu-user, with no Rust: installed with `gem install --local`, loaded,
# a folder store searched, an HTML page and a PDF converted. qemu-user cannot install
# the worker's seccomp filter (see file_store_convert::worker), so the gem's worker
# refuses to run there, and the conversions run in the worker built without the filter
# beside the gem (file_store_convert_emulated), which no gem holds.
# Run by bin/test-arm64: rspec --options /dev/null spec/app/arm64_gem_under_qemu.rb
RSpec.describe 'the aarch64-linux gem under qemu-user' do
  arm64 = '/opt/arm64-ruby'
  ruby = "#{arm64}/ruby"
  release = File.join(GemBuilds::ROOT, 'target/aarch64-linux/aarch64-unknown-linux-gnu/release')
  gem_file = File.join(GemBuilds::ROOT, 'pkg', "ruby_llm-file_store-#{GemBuilds.version}-aarch64-linux.gem")
  libraries = ['lib/ruby_llm/file_store/3.3/file_store_native.so']
  worker = 'lib/ruby_llm/file_store/file_store_convert'

  around do |example|
    Dir.mktmpdir('arm64-gem') do |dir|
      @dir = dir
      example.run
    end
  end

  before do
    skip "not in the arm64 root (bin/newer-ruby arm64 run): no #{ruby}" unless File.executable?(ruby)
    skip "no #{gem_file}: rake native PLATFORM=aarch64-linux builds it" unless File.file?(gem_file)
  end

  def run!(env, *command)
    output, status = Open3.capture2e(env, *command)
    expect(status).to be_success, "#{command.join(' ')}\n#{output}"
    output
  end

  # +argv+ with cargo and rustc hidden: the host's toolchain and sid's.
  def without_rust(*argv)
    ['bwrap', '--dev-bind', '/', '/', '--tmpfs', '/opt/cargo', '--tmpfs', '/opt/rustup',
     *%w[/usr/bin/cargo /usr/bin/rustc].flat_map { |file| ['--ro-bind', '/dev/null', file] }, '--', *argv]
  end

  it 'holds the Ruby 3.3 library and the worker for aarch64, needing glibc 2.34 at most and only the C library' do
    spec = Gem::Package.new(gem_file).spec
    expect(spec.platform.to_s).to eq('aarch64-linux')
    expect(spec.required_ruby_version).to be_satisfied_by(Gem::Version.new('3.3.8'))
    expect(spec.required_ruby_version).not_to be_satisfied_by(Gem::Version.new('3.4.0'))
    Gem::Package.new(gem_file).extract_files(@dir)
    expect(Dir.glob('**/*.{so,bundle,o,a}', base: @dir)).to eq(libraries)
    [*libraries, worker].each do |path|
      file = File.join(@dir, path)
      described = run!({}, 'file', file)
      expect(described).to include('ARM aarch64', 'stripped')
      expect(described).not_to include('not stripped')
      versions = run!({}, 'readelf', '-W', '--dyn-syms', file).scan(/GLIBC_([\d.]+)/).flatten
      needed = versions.map { |version| Gem::Version.new(version) }.max
      expect(needed).to be <= Gem::Version.new('2.34')
      linked = run!({}, 'readelf', '-d', file).scan(/\(NEEDED\).*\[(.+)\]/).flatten
      expect(linked - %w[libc.so.6 libm.so.6 libgcc_s.so.1 ld-linux-aarch64.so.1]).to eq([])
    end
  end

  it 'installs into the emulated Ruby 3.3 without Rust, then loads, stores, searches and converts' do
    home = File.join(@dir, 'home')
    GemBuilds.ruby_llm_gem(@dir) # beside the gem, for --local to find
    FileUtils.cp(gem_file, @dir)
    install = Dir.chdir(@dir) do
      run!({ 'GEM_HOME' => home, 'GEM_PATH' => home },
           *without_rust(ruby, "#{arm64}/usr/bin/gem3.3", 'install', '--local', '--no-document', File.basename(gem_file)))
    end
    expect(install).to include("Successfully installed #{File.basename(gem_file, '.gem')}")
    expect(install).not_to include('Building native extensions')
    installed = File.join(home, 'gems', File.basename(gem_file, '.gem'))

    # The worker the gem holds, run by qemu-user: the emulated process's execve runs
    # an amd64 program natively, so this script, which the store starts, starts qemu.
    converter = File.join(@dir, 'convert')
    File.write(converter, "#!/bin/sh\nexec /usr/bin/qemu-aarch64 -L #{arm64} #{release}/file_store_convert_emulated\n")
    File.chmod(0o755, converter)
    env = GemBuilds.ruby_env(home).merge('RUBY_LLM_FILE_STORE_CHECK_CONVERTER' => converter)
    seen = JSON.parse(run!(env, *without_rust(ruby, GemBuilds::CHECK, File.join(@dir, 'store'))).lines.last)
    expect(seen['native']).to eq([File.join(installed, libraries.first)])
    expect(seen['list']).to eq(['notes/plan.md', 'page.html'])
    expect(seen['search']).to eq("notes/plan.md:2: Ship it on Friday\npage.html:2: Revenue grew")
    expect(seen['text']).to eq("# Quarterly report\nRevenue grew\n")
    expect(seen['pdf']).to eq('report.pdf:3: Revenue grew 12 percent in the third quarter, led by the northern region.')
    expect(seen['worker']).to eq(converter)
  end

  # What stops the gem's own worker under qemu-user, as qemu's -strace shows it: the
  # seccomp system call is not emulated, and the worker ends rather than convert.
  it 'has a worker that refuses to run unfiltered under qemu-user, saying why' do
    Gem::Package.new(gem_file).extract_files(@dir)
    output, status = Open3.capture2e('qemu-aarch64', '-strace', '-L', arm64, File.join(@dir, worker), stdin_data: '')
    expect(status.exitstatus).to eq(2)
    expect(output).to match(/seccomp\(.*\) = -1 errno=38 \(Function not implemented\)/)
      .and include('file_store_convert: ')
  end
end
