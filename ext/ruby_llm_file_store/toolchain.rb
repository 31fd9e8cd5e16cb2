# frozen_string_literal: true

require 'rbconfig'

module RubyLLMFileStoreBuild
  # What compiling the extension needs, looked for before anything runs, so a machine
  # without it gets one line saying what to install rather than cargo's or bindgen's
  # first error a few minutes in.
  module Toolchain
    # The oldest Rust the crates build with (rust-version in Cargo.toml).
    RUST = '1.88'
    # The Ruby versions the precompiled gem carries a library for (`rake native` builds
    # each), and where it exists: installing it needs neither Rust nor libclang.
    PRECOMPILED_RUBIES = %w[3.1 3.3 3.4].freeze
    PRECOMPILED = "x86_64-linux (Ruby #{PRECOMPILED_RUBIES.join(', ')})".freeze
    LIBCLANG = 'libclang (libclang-dev on Debian and Ubuntu, clang-devel on Fedora, llvm with Homebrew)'
    INSTEAD = "or use the precompiled gem for #{PRECOMPILED}, which needs neither and which RubyGems and " \
              'Bundler pick there unless told to take the source gem (--platform ruby, force_ruby_platform)'.freeze

    # The folders clang-sys (through bindgen) looks in when LIBCLANG_PATH is not set.
    LIBCLANG_DIRS = {
      'linux' => %w[/usr/local/llvm*/lib* /usr/local/lib*/*/* /usr/local/lib*/* /usr/local/lib* /usr/lib*/*/*
                    /usr/lib*/* /usr/lib*],
      'darwin' => %w[/usr/local/opt/llvm*/lib/llvm*/lib /Library/Developer/CommandLineTools/usr/lib
                     /Applications/Xcode.app/Contents/Developer/Toolchains/XcodeDefault.xctoolchain/usr/lib
                     /usr/local/opt/llvm*/lib /opt/homebrew/opt/llvm*/lib]
    }.freeze
    LIBCLANG_NAMES = %w[libclang.so libclang-*.so libclang.so.* libclang-*.so.* libclang.dylib].freeze

    module_function

    # One line saying what is missing and what to do, or nil when the build can start.
    def problem(env = ENV)
      no_cargo(env) || old_rust(env) || no_libclang(env)
    end

    def no_cargo(env)
      return if executable(env['CARGO'] || 'cargo', env)

      "ruby_llm-file_store: cargo is not on PATH, and this gem compiles Rust: install Rust #{RUST} or later " \
        "(https://rustup.rs) and #{LIBCLANG}, #{INSTEAD}."
    end

    def old_rust(env)
      rust = rustc_version(env)
      return unless rust && Gem::Version.new(rust) < Gem::Version.new(RUST)

      "ruby_llm-file_store: Rust #{rust} is older than the #{RUST} this gem needs: update it (rustup update), " \
        "#{INSTEAD}."
    end

    def no_libclang(env)
      return unless libclang_dirs(env) && libclang(env).nil?

      where = env['LIBCLANG_PATH'] ? " in LIBCLANG_PATH (#{env['LIBCLANG_PATH']})" : ''
      "ruby_llm-file_store: libclang was not found#{where}, and the rb-sys crate reads Ruby's headers with " \
        "it: install #{LIBCLANG} or set LIBCLANG_PATH to its folder, #{INSTEAD}."
    end

    # The path of +name+ on the PATH in +env+ (or +name+ itself when it is a path).
    def executable(name, env = ENV)
      return (File.executable?(name) && name) || nil if name.include?('/')

      env.fetch('PATH', '').split(File::PATH_SEPARATOR).map { |dir| File.join(dir, name) }
         .find { |path| File.file?(path) && File.executable?(path) }
    end

    # rustc's version ("1.91.0"), or nil when no rustc is on PATH (rustup's cargo
    # finds its own, so only a rustc that is there is judged).
    def rustc_version(env = ENV)
      rustc = executable(env['RUSTC'] || 'rustc', env)
      return unless rustc

      IO.popen(env.to_h, [rustc, '--version'], err: File::NULL, &:read)[/\d+\.\d+\.\d+/]
    rescue SystemCallError
      nil
    end

    # The first libclang shared library clang-sys would load, or nil.
    def libclang(env = ENV)
      return env['LIBCLANG_PATH'] if env['LIBCLANG_PATH'] && File.file?(env['LIBCLANG_PATH'])

      names = "{#{LIBCLANG_NAMES.join(',')}}"
      libclang_dirs(env).each do |dir|
        found = Dir.glob(File.join(dir, names)).find { |path| File.file?(path) }
        return found if found
      end
      nil
    end

    # Where to look: LIBCLANG_PATH alone when set (clang-sys then looks nowhere else),
    # else llvm-config's folders, the library paths and the usual folders; nil on a
    # system whose folders are not known here (cargo then says what it misses).
    def libclang_dirs(env = ENV)
      return [env['LIBCLANG_PATH']] if env['LIBCLANG_PATH']

      usual = LIBCLANG_DIRS[RbConfig::CONFIG['host_os'][/linux|darwin/]]
      return unless usual

      prefix = llvm_prefix(env)
      from_llvm = prefix ? %w[bin lib lib64].map { |sub| File.join(prefix, sub) } : []
      paths = %w[LD_LIBRARY_PATH LIBRARY_PATH].flat_map { |name| env.fetch(name, '').split(File::PATH_SEPARATOR) }
      from_llvm + paths.reject(&:empty?) + usual
    end

    def llvm_prefix(env)
      llvm_config = executable(env['LLVM_CONFIG_PATH'] || 'llvm-config', env)
      llvm_config && IO.popen([llvm_config, '--prefix'], err: File::NULL, &:read).lines.first&.chomp
    rescue SystemCallError
      nil
    end
  end
end
