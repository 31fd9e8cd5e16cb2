# frozen_string_literal: true

require_relative 'rails_app'
require_relative 'gem_builds'
require_relative 'without_rust'

# A Rails application made with `rails new` whose Gemfile names the gem as a user's
# does (no path), on this machine with Rust and libclang hidden: Bundler resolves it
# from vendor/cache, its offline source, which holds both the source gem and the
# precompiled one, and installs into an empty GEM_HOME; every bin/rails command runs
# without Rust too.
class PlatformGemApp < RailsApp
  def initialize(rails, base, home:)
    super(rails, base)
    @home = home
  end

  def env
    super.merge(WithoutRust.env.except('RUBYLIB', 'RUBYOPT'))
         .merge('GEM_HOME' => @home, 'GEM_PATH' => [@home, *Gem.path].uniq.join(':'))
  end

  # With vendor/cache present, bundle install would copy every gem into it, and
  # Debian's gems have no .gem file to copy: --no-cache leaves the folder as it is.
  def run!(*command, env: {})
    command += ['--no-cache'] if command.first(2) == %w[bundle install]
    super(*WithoutRust.command(*command), env:)
  end

  def write_gemfile
    super
    gemfile = File.join(dir, 'Gemfile')
    File.write(gemfile, File.read(gemfile).sub(/^gem "ruby_llm-file_store", path: .*$/, 'gem "ruby_llm-file_store"'))
    FileUtils.mkdir_p(File.join(dir, 'vendor/cache'))
    FileUtils.cp(GemBuilds.gems.values_at(:platform, :source), File.join(dir, 'vendor/cache'))
  end
end
