# frozen_string_literal: true

require 'fileutils'
require 'net/http'
require 'open3'
require 'rbconfig'
require 'socket'

# bin/rails server on 127.0.0.1, started and always stopped.
module AppServer
  # Starts bin/rails server on 127.0.0.1 and yields its base URL; always stops it.
  def serve
    port = FreePort.find
    log = File.join(dir, 'log', 'server.out')
    pid = Process.spawn(env, 'bin/rails', 'server', '-b', '127.0.0.1', '-p', port.to_s, chdir: dir,
                                                                                        %i[out err] => [log, 'w'], pgroup: true)
    wait_for(port, pid, log)
    yield "http://127.0.0.1:#{port}"
  ensure
    stop(pid) if pid
  end

  def stop(pid)
    Process.kill('TERM', -pid)
    Process.wait(pid)
  rescue Errno::ESRCH, Errno::ECHILD
    nil # it ended already, and wait_for reaped it
  end

  def wait_for(port, pid, log)
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 60
    loop do
      TCPSocket.new('127.0.0.1', port).close
      return
    rescue Errno::ECONNREFUSED
      raise "the server ended:\n#{File.read(log)}" if Process.waitpid(pid, Process::WNOHANG)
      if Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
        raise "the server did not start in 60 s:\n#{File.read(log)}"
      end

      sleep 0.2
    end
  end
end

# The steps that give ruby_llm's own Chat (acts_as_chat) a store, and the scripts that
# then ask it about a PDF.
module ChatStoreSteps
  FILES = File.expand_path('../files', __dir__)
  SCRIPTED_LLM_SERVER = File.expand_path('../../support/scripted_llm_server.rb', __dir__)
  # What ask_in_job.rb needs: the model's scripted server and the PDF it attaches.
  JOB_ENV = { 'SCRIPTED_LLM_SERVER' => SCRIPTED_LLM_SERVER,
              'PDF' => File.expand_path('../../fixtures/documents/report.pdf', __dir__) }.freeze

  # The chat model declares its store, with each chat's user as the owner (a column the
  # application adds with a migration of its own), and ruby_llm's chat UI generator
  # writes its views, controllers, Message's Turbo broadcasts and ChatResponseJob, whose
  # chunks an initializer records in place of Turbo (spec/app/files/turbo_broadcasts.rb
  # says why). Returns the generator's output.
  def declare_chat_store
    run!('bin/rails', 'generate', 'migration', 'AddUserIdToChats', 'user_id:integer')
    chat_model = File.join(dir, 'app/models/chat.rb')
    File.write(chat_model, File.read(chat_model).sub(/^end/, <<~RUBY.chomp))
        belongs_to :user, optional: true
        file_store owner: -> { user }, spill_to_file: 20_000
      end
    RUBY
    FileUtils.cp(File.join(FILES, 'turbo_broadcasts.rb'), File.join(dir, 'config/initializers'))
    FileUtils.cp(File.join(FILES, 'ask_in_job.rb'), dir)
    run!('bin/rails', 'generate', 'ruby_llm:chat_ui')
  end
end

# A Rails application made the way a user makes one: `rails new`, a Gemfile resolved
# by Bundler in local mode (no gem server), then bin/rails commands.
#
# How each part is loaded:
# - Rails 6.1: Debian's railties, activerecord and activestorage, named in the Gemfile.
# - Rails 7.2: the offline kit (../shared/gems/rails-7.2) on RUBYLIB, ahead of
#   everything, as its README says; the Gemfile names the Debian gems it needs.
#   `rails new` itself runs from the kit's railties. Rails 8.1 the same way, from
#   ../shared/gems/modern/rails-8.1, on Ruby 3.3 (the newer stack's root).
# - ruby_llm-file_store: `gem "ruby_llm-file_store", path: <checkout>`; its library is
#   the one `rake compile` put in lib/.
# - ruby_llm: the kit's ruby_llm-main (or ruby_llm-1.16). Its gemspec asks for Ruby 3.1.3, so Bundler
#   cannot take it as it is: the Gemfile names a folder holding a one-line gemspec
#   (name and version) and a link to the kit's lib/. Its own dependencies (faraday and
#   the rest) come through RUBYLIB, which Bundler leaves on the load path.
class RailsApp
  include AppServer
  include ChatStoreSteps

  ROOT = File.expand_path('../../..', __dir__)
  KIT = File.expand_path('../shared/gems', ROOT)

  attr_reader :dir, :rails, :ruby_llm

  # +ruby_llm+ names the kit's set the Gemfile takes ruby_llm from.
  def initialize(rails, base, ruby_llm: 'ruby_llm-main')
    @rails = rails
    @base = base
    @ruby_llm = ruby_llm
    @dir = File.join(base, ruby_llm == 'ruby_llm-main' ? "app-#{rails}" : "app-#{rails}-#{ruby_llm}")
  end

  def self.kit?(set)
    File.directory?(File.join(KIT, set))
  end

  # The kit this application's Rails and ruby_llm come from: Rails 8.1's, with the
  # unpatched ruby_llm, is for Ruby 3.3 and later (../shared/gems/modern).
  def kit
    rails == '8.1' ? File.join(KIT, 'modern') : KIT
  end

  def env
    kit_libs = Dir[File.join(kit, ruby_llm, '*', 'lib')].reject { |lib| lib.include?('/ruby_llm/lib') }
    kit_libs = rails_kit_libs + kit_libs unless rails == '6.1'
    { 'RUBYLIB' => kit_libs.join(':'), 'BUNDLE_GEMFILE' => File.join(dir, 'Gemfile'),
      'RAILS_ENV' => 'development', 'DISABLE_SPRING' => '1', 'BUNDLE_FROZEN' => nil,
      'BUNDLE_PATH' => nil, 'RUBYOPT' => nil }
  end

  # Runs a command in the application, raising with its output when it fails.
  def run!(*command, env: {})
    output, status = Open3.capture2e(self.env.merge(env), *command, chdir: dir)
    raise "#{command.join(' ')} failed in #{dir}:\n#{output}" unless status.success?

    output
  end

  # Makes the application with `rails new`, or, when +from+ (a RailsApp made with the
  # same Rails) is given, as a copy of it before any generator ran: same files, its own
  # Gemfile and database.
  def create!(from: nil)
    FileUtils.mkdir_p(@base)
    return copy_of(from) if from

    flags = %w[--skip-bundle --skip-git --skip-javascript --skip-action-mailer --skip-action-mailbox
               --skip-action-text --skip-action-cable --skip-test --skip-system-test --skip-jbuilder
               --skip-bootsnap -d sqlite3]
    flags += if rails == '6.1'
               %w[--skip-webpack-install --skip-sprockets --skip-spring --skip-listen --skip-turbolinks]
             else
               %w[--skip-docker --skip-asset-pipeline --skip-hotwire --skip-dev-gems --skip-rubocop --skip-brakeman --skip-ci]
             end
    flags += %w[--skip-kamal --skip-solid --skip-thruster --skip-bundler-audit] if rails == '8.1'
    output, status = Open3.capture2e({ 'RUBYLIB' => rails_new_load_path }, *rails_new, 'new', dir, *flags, chdir: @base)
    raise "rails new failed:\n#{output}" unless status.success?

    write_gemfile
    run!('bundle', 'install', '--local', '--quiet')
  end

  def copy_of(app)
    raise ArgumentError, "#{app.dir} is Rails #{app.rails}, not #{rails}" unless app.rails == rails

    FileUtils.cp_r(app.dir, dir)
    write_gemfile
    run!('bundle', 'install', '--local', '--quiet')
  end

  def rails_new
    rails == '6.1' ? ['rails'] : [RbConfig.ruby, '-e', 'require "rails/cli"', '--']
  end

  def rails_kit_libs
    Dir[File.join(kit, "rails-#{rails}", '*', 'lib')]
  end

  def rails_new_load_path
    rails == '6.1' ? nil : rails_kit_libs.join(':')
  end

  def write_gemfile
    gem_dir = File.join(@base, 'kit', ruby_llm, 'ruby_llm')
    FileUtils.mkdir_p(gem_dir)
    FileUtils.ln_sf(File.join(kit, ruby_llm, 'ruby_llm', 'lib'), File.join(gem_dir, 'lib'))
    version = File.read(File.join(gem_dir, 'lib/ruby_llm/version.rb'))[/VERSION = ['"](.+?)['"]/, 1]
    File.write(File.join(gem_dir, 'ruby_llm.gemspec'), <<~RUBY)
      Gem::Specification.new { |s| s.name = "ruby_llm"; s.version = #{version.inspect}; s.summary = "the kit's ruby_llm"; s.authors = ["kit"] }
    RUBY
    File.write(File.join(dir, 'Gemfile'), <<~RUBY)
      source "https://rubygems.org"
      #{rails_gems}
      gem "sqlite3"
      gem "webrick"
      gem "ruby_llm", path: #{gem_dir.inspect}
      gem "ruby_llm-file_store", path: #{ROOT.inspect}
    RUBY
  end

  # Rails 7.2's frameworks come from the kit through RUBYLIB (their gemspecs name
  # files the kit leaves out, so Bundler cannot read them); the Gemfile names the
  # Debian gems they need, which Bundler then lets them load.
  DEBIAN_FOR_RAILS_72 = %w[i18n tzinfo rack rack-test builder marcel zeitwerk crass nokogiri
                           connection_pool useragent minitest mini_mime rake].freeze

  # Debian sid keeps its gems' files in gem folders rather than in vendor_ruby, where
  # Bundler leaves only the gems the Gemfile names on the load path: Rails 8.1 there
  # needs these named too.
  DEBIAN_FOR_RAILS_81 = (DEBIAN_FOR_RAILS_72 + %w[thor rackup rack-session erubi rails-dom-testing rails-html-sanitizer
                                                  loofah globalid irb concurrent-ruby]).freeze

  def rails_gems
    return %(gem "railties", "~> 6.1.7"\ngem "activerecord"\ngem "activestorage") if rails == '6.1'

    (rails == '8.1' ? DEBIAN_FOR_RAILS_81 : DEBIAN_FOR_RAILS_72).map { |name| %(gem #{name.inspect}) }.join("\n")
  end

  # GETs +url+, following redirects as a browser does; returns the last response.
  def self.get(url, limit: 5)
    response = Net::HTTP.get_response(URI(url))
    return response unless response.is_a?(Net::HTTPRedirection)
    raise "too many redirects at #{url}" if limit.zero?

    get(URI.join(url, response['location']).to_s, limit: limit - 1)
  end
end
