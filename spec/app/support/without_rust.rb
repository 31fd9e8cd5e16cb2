# frozen_string_literal: true

require 'rbconfig'
require_relative '../../../ext/ruby_llm_file_store/toolchain'

# A machine without Rust, made from this one: commands run under bubblewrap with the
# root file system as it is, but cargo's and rustup's folders, the LLVM installation and
# every libclang hidden (an empty tmpfs over a folder, /dev/null over a file), and with
# an environment that names none of them. What a user without a Rust toolchain has.
module WithoutRust
  TOOLCHAIN = RubyLLMFileStoreBuild::Toolchain
  HIDDEN_ENV = %w[CARGO CARGO_HOME CARGO_TARGET_DIR RUSTC RUSTUP_HOME RUSTUP_TOOLCHAIN LIBCLANG_PATH
                  LLVM_CONFIG_PATH RUBYOPT RUBYLIB].freeze

  module_function

  # +argv+ as a command that runs without Rust and libclang; with +keep_rust+, without
  # libclang alone.
  def command(*argv, keep_rust: false)
    folders = keep_rust ? llvm_prefixes.compact : hidden_folders
    ['bwrap', '--dev-bind', '/', '/', *folders.flat_map { |dir| ['--tmpfs', dir] },
     *hidden_files.flat_map { |file| ['--ro-bind', '/dev/null', file] }, '--', *argv]
  end

  # The environment a command gets: PATH without the folders cargo and rustc are in,
  # and no variable that points at a toolchain. +extra+ is merged in last.
  def env(extra = {})
    path = ENV.fetch('PATH').split(File::PATH_SEPARATOR).reject { |dir| toolchain_bins.include?(dir) }
    HIDDEN_ENV.to_h { |name| [name, nil] }.merge('PATH' => path.join(File::PATH_SEPARATOR)).merge(extra)
  end

  def toolchain_bins
    %w[cargo rustc rustup].filter_map { |name| TOOLCHAIN.executable(name) }.map { |path| File.dirname(path) }.uniq
  end

  # cargo's and rustup's homes and the LLVM installation that holds libclang.
  def hidden_folders
    home = Dir.home
    folders = [ENV.fetch('CARGO_HOME', File.join(home, '.cargo')), ENV.fetch('RUSTUP_HOME', File.join(home, '.rustup')),
               *toolchain_bins.map { |dir| File.dirname(dir) }, *llvm_prefixes]
    folders.compact.select { |dir| File.directory?(dir) }.map { |dir| File.realpath(dir) }.uniq
  end

  # The LLVM installations: llvm-config's, and the one clang is a link into
  # (/usr/lib/llvm-21 in Debian sid, where llvm-config has a versioned name only).
  def llvm_prefixes
    linked = %w[clang clang++].filter_map { |name| TOOLCHAIN.executable(name) }
                              .map { |path| File.dirname(File.realpath(path), 2) }
    [TOOLCHAIN.llvm_prefix(ENV), *linked.select { |dir| File.basename(dir).start_with?('llvm') }]
  end

  # Every libclang outside those folders, by its real path.
  def hidden_files
    names = "{#{TOOLCHAIN::LIBCLANG_NAMES.join(',')}}"
    found = TOOLCHAIN.libclang_dirs(ENV.to_h.merge('LIBCLANG_PATH' => nil)).flat_map do |dir|
      Dir.glob(File.join(dir, names))
    end
    found.select { |path| File.file?(path) }.map { |path| File.realpath(path) }.uniq
         .reject { |path| hidden_folders.any? { |dir| path.start_with?("#{dir}/") } }
  end

  # What a command run this way finds of the toolchain: [] when nothing.
  def found_inside
    probe = <<~RUBY
      require #{File.expand_path('../../../ext/ruby_llm_file_store/toolchain', __dir__).inspect}
      t = RubyLLMFileStoreBuild::Toolchain
      puts(%w[cargo rustc rustup llvm-config clang].filter_map { |name| t.executable(name) }, t.libclang.to_s)
    RUBY
    output = IO.popen(env, command(RbConfig.ruby, '-e', probe), err: %i[child out], &:read)
    output.lines.map(&:chomp).reject(&:empty?)
  end
end
