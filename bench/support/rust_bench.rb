# frozen_string_literal: true

require 'fileutils'

# Builds a benchmark written in Rust, one file in bench/support/, as a package of
# its own under target/bench-<name>/: outside the workspace, so neither the gem nor
# its tests gain the dependencies a benchmark compares against, and no Cargo.toml in
# bench/ stands for a crate of the gem. Returns the path of the built program.
module RustBench
  ROOT = File.expand_path('../..', __dir__)

  module_function

  # +dependencies+: lines of a [dependencies] table; "CORE" stands for the base crate (crates/base).
  def build(name, source, dependencies)
    dir = File.join(ROOT, 'target', "bench-#{name}")
    FileUtils.mkdir_p(dir)
    File.write(File.join(dir, 'Cargo.toml'), manifest(name, source, dependencies))
    system('cargo', 'build', '--release', '--quiet', '--manifest-path', File.join(dir, 'Cargo.toml')) ||
      abort("cargo could not build #{source}")
    File.join(dir, 'target', 'release', name)
  end

  def manifest(name, source, dependencies)
    core = %(file_store_base = { package = "ruby_llm_file_store_base", path = "#{File.join(ROOT, 'crates/base')}" })
    <<~TOML
      [package]
      name = "#{name}"
      version = "0.0.0"
      edition = "2021"
      publish = false

      [[bin]]
      name = "#{name}"
      path = "#{File.join(ROOT, 'bench', 'support', source)}"

      [dependencies]
      #{dependencies.map { |line| line == 'CORE' ? core : line }.join("\n")}

      [workspace]

      [profile.release]
      lto = "thin"
      codegen-units = 1
    TOML
  end
end
