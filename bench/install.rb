# frozen_string_literal: true

# `gem install` of the precompiled platform gem against the source gem, in one run,
# each into an empty GEM_HOME: the platform gem on this machine with Rust and libclang
# hidden (spec/app/support/without_rust.rb), the source gem with cargo compiling every
# crate from nothing, as on a user's first install (the crates themselves are already
# in cargo's download cache here; a first install also downloads them).
#
#   rake native gem && ruby bench/install.rb

require 'open3'
require 'tmpdir'
require_relative '../spec/app/support/without_rust'
require_relative '../lib/ruby_llm/file_store/version'

ROOT = File.expand_path('..', __dir__)
VERSION = RubyLLM::FileStore::VERSION
PLATFORM_GEM = File.join(ROOT, 'pkg', "ruby_llm-file_store-#{VERSION}-#{Gem::Platform.local}.gem")
SOURCE_GEM = File.join(ROOT, 'pkg', "ruby_llm-file_store-#{VERSION}.gem")
[PLATFORM_GEM, SOURCE_GEM].each { |gem| abort "#{gem} is missing: run rake native gem" unless File.exist?(gem) }

# Seconds `gem install` of +gem_file+ takes, run as +wrap+ makes it, in +env+.
def install_time(gem_file, env, wrap = ->(argv) { argv })
  Dir.mktmpdir('ruby_llm_install') do |home|
    argv = wrap.call(['gem', 'install', '--local', '--no-document', '--ignore-dependencies', '--install-dir', home,
                      gem_file])
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    output, status = Open3.capture2e(env, *argv)
    took = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
    abort "#{argv.join(' ')} failed:\n#{output}" unless status.success?
    took
  end
end

platform = install_time(PLATFORM_GEM, WithoutRust.env, ->(argv) { WithoutRust.command(*argv) })
puts format('platform gem (%<name>s), no Rust: %<s>.1f s', name: File.basename(PLATFORM_GEM), s: platform)
source = install_time(SOURCE_GEM, { 'CARGO_TARGET_DIR' => nil })
puts format('source gem (%<name>s), cargo from nothing: %<s>.1f s (%<m>d min %<r>02d s)',
            name: File.basename(SOURCE_GEM), s: source, m: source / 60, r: source % 60)
puts format('the platform gem installs %<x>.0fx faster', x: source / platform)
