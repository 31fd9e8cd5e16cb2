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

# What an application on the precompiled gem shows: no Rust to be found, Bundler's pick
# of the x86_64-linux gem with a library for each Ruby and nothing compiled, and
# +load_command+ (run in the application, printing $LOADED_FEATURES' library last)
# loading this Ruby's. The group sets @app and @home.
RSpec.shared_examples 'an application on the precompiled gem' do |load_command|
  it 'runs where cargo, rustc and libclang cannot be found' do
    expect(WithoutRust.found_inside).to eq([])
  end

  it "is resolved by Bundler to the x86_64-linux gem, nothing compiled, and loads Ruby #{GemBuilds.minor}'s library" do
    installed = File.join(@home, 'gems', "ruby_llm-file_store-#{GemBuilds.version}-x86_64-linux")
    expect(File.read(File.join(@app.dir, 'Gemfile.lock')))
      .to include("ruby_llm-file_store (#{GemBuilds.version}-x86_64-linux)")
    expect(Dir.glob('**/*.so', base: installed).sort)
      .to eq(GemBuilds.minors.map { |minor| "lib/ruby_llm/file_store/#{minor}/file_store_native.so" })
    expect(Dir.glob('**/*', base: File.join(@home, 'extensions'))).to eq([])
    expect(@app.run!(*load_command).lines.last)
      .to eq("#{installed}/lib/ruby_llm/file_store/#{GemBuilds.minor}/file_store_native.so\n")
  end
end
