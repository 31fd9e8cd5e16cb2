# frozen_string_literal: true

require 'fileutils'
require 'open3'
require 'rubygems/package'
require_relative '../../../ext/ruby_llm_file_store/toolchain'

# The two gems as `rake native gem` makes them, built once a run, and what installing
# them needs here.
module GemBuilds
  ROOT = File.expand_path('../../..', __dir__)
  # ruby_llm main: the kit's, patched to parse on Ruby 3.1, or on a newer Ruby the
  # unpatched one (../shared/gems/modern).
  KIT = [(File.expand_path('../shared/gems/modern/ruby_llm-main', ROOT) if RUBY_VERSION >= '3.2'),
         File.expand_path('../shared/gems/ruby_llm-main', ROOT)].compact.find { |kit| File.directory?(kit) }
  CHECK = File.expand_path('../files/use_installed_gem.rb', __dir__)

  module_function

  # { platform: "pkg/...-x86_64-linux.gem", source: "pkg/....gem" }, built by
  # `rake native gem` the first time it is asked for; in the newer stack's root, the
  # ones the host built (bin/test-newer builds them there first: the root's glibc is
  # newer than the gem may need).
  def gems
    @gems ||= begin
      output = ENV['RUBY_LLM_FILE_STORE_NEWER_ROOT'].to_s.empty? ? build : 'built on the host'
      spec = Gem::Specification.load(File.join(ROOT, 'ruby_llm-file_store.gemspec'))
      { platform: File.join(ROOT, 'pkg', "#{spec.name}-#{spec.version}-#{platform}.gem"),
        source: File.join(ROOT, 'pkg', spec.file_name), build_output: output }
    end
  end

  def build
    output, status = Open3.capture2e('rake', 'native', 'gem', chdir: ROOT)
    raise "rake native gem failed:\n#{output}" unless status.success?

    output
  end

  # This machine's platform as the platform gem names it: x86_64-linux, also where a
  # newer RubyGems says x86_64-linux-gnu.
  def platform
    local = Gem::Platform.local
    local.os == 'linux' && local.version == 'gnu' ? "#{local.cpu}-linux" : local.to_s
  end

  def version
    Gem::Specification.load(File.join(ROOT, 'ruby_llm-file_store.gemspec')).version.to_s
  end

  # The Ruby versions the platform gem holds a library for.
  def minors
    RubyLLMFileStoreBuild::Toolchain::PRECOMPILED_RUBIES
  end

  # The linker the checkout's cargo runs use (.cargo/config.toml), for a build outside
  # it that shares its target/: {} where that file names none for this machine.
  def checkout_linker
    triple = "#{RbConfig::CONFIG['host_cpu']}-unknown-linux-gnu"
    config = File.read(File.join(ROOT, '.cargo/config.toml'))
    return {} unless RbConfig::CONFIG['host_os'].include?('linux') && config.include?("[target.#{triple}]")

    { "CARGO_TARGET_#{triple.upcase.tr('-', '_')}_LINKER" => File.join(ROOT, 'ext/ruby_llm_file_store/linker') }
  end

  # This Ruby's version, whose library the platform gem loads here.
  def minor
    RUBY_VERSION[/\A\d+\.\d+/]
  end

  # A ruby_llm .gem made in +dir+ from the kit's ruby_llm (main): its lib/ as it is,
  # under a gemspec of name and version, for `gem install --local` to find beside the
  # gem that depends on it. Its own dependencies come through dependency_load_path.
  def ruby_llm_gem(dir)
    source = File.join(dir, 'ruby_llm-source')
    FileUtils.mkdir_p(source)
    FileUtils.cp_r(File.join(KIT, 'ruby_llm', 'lib'), source)
    version = File.read(File.join(source, 'lib/ruby_llm/version.rb'))[/VERSION = ['"](.+?)['"]/, 1]
    File.write(File.join(source, 'ruby_llm.gemspec'), <<~RUBY)
      Gem::Specification.new do |s|
        s.name = 'ruby_llm'
        s.version = #{version.inspect}
        s.summary = "ruby_llm from the kit's main"
        s.authors = ['ruby_llm']
        s.files = Dir['lib/**/*']
      end
    RUBY
    gem_file = File.join(dir, "ruby_llm-#{version}.gem")
    output, status = Open3.capture2e('gem', 'build', 'ruby_llm.gemspec', '-o', gem_file, chdir: source)
    raise "gem build of ruby_llm failed:\n#{output}" unless status.success?

    gem_file
  end

  # ruby_llm's own dependencies (faraday and the rest) from the kit, for RUBYLIB.
  def dependency_load_path
    Dir[File.join(KIT, '*', 'lib')].reject { |lib| lib.end_with?('/ruby_llm/lib') }.join(':')
  end

  # The environment of a Ruby that uses the gems installed in +home+: the machine's
  # own gems (Debian's zeitwerk and marcel, which ruby_llm needs) after them, and
  # ruby_llm's dependencies from the kit.
  def ruby_env(home)
    { 'GEM_HOME' => home, 'GEM_PATH' => [home, *Gem.path].uniq.join(':'), 'RUBYOPT' => nil,
      'RUBYLIB' => dependency_load_path }
  end

  # Every file of +gem_file+, by its path in the gem.
  def files(gem_file)
    Gem::Package.new(gem_file).contents
  end
end
