# frozen_string_literal: true

require 'json'
require 'open3'
require 'rbconfig'

# Threads of one process, as Puma and the :async Active Job adapter run a Rails app:
# threads/app.rb boots a real Rails application (Active Storage analysing every blob
# on the job threads) and runs 8 request threads x 50 writes and 8 threads of
# with_lock read-modify-writes on one chat. It runs in a child process with a
# watchdog, so a hang fails the example instead of hanging the suite.
RSpec.describe 'RubyLLM::ActiveRecord::FileStore under threads in one Rails process', :slow do
  app = File.expand_path('threads/app.rb', __dir__)
  watchdog = 240

  # The app boots Rails itself: where Rails does not load here (Ruby 3.4 on Debian, whose
  # native gems are built for 3.3 only), say so rather than fail. Asked of a child, so
  # this process does not load Rails.
  rails_missing = lambda do
    Open3.capture2e(RbConfig.ruby, '-e', 'require "rails"; require "action_controller"')
         .then { |output, status| status.success? ? false : output.lines.first.to_s.strip }
  end
  before { (reason = rails_missing.call) && skip("needs Rails: #{reason}") }

  %w[production development].product(%w[delete wal]).each do |env, journal|
    it "counts every write and increment exactly, with no BusyException (#{env}, #{journal} journal)" do
      output = +''
      status = nil
      Open3.popen2e(RbConfig.ruby, app, env, journal, pgroup: true) do |_stdin, out, thread|
        reader = Thread.new { output << out.read }
        unless thread.join(watchdog)
          Process.kill('KILL', -thread.pid)
          raise "hung: no result within #{watchdog} s\n#{output}"
        end
        reader.join
        status = thread.value
      end
      expect(status).to be_success, output
      result = JSON.parse(output.lines.last)
      expect(result).to include('journal' => journal, 'errors' => [], 'files' => 401, 'counter' => 240,
                                'duplicates' => 0, 'orphans' => 0, 'blobs' => 401)
      expect(result['reloads']).to be_positive if env == 'development'
    end
  end
end
