# frozen_string_literal: true

require 'open3'

# The folder store's lock under a batch job that takes it back to back, in another
# process: a request that asks now and then gets it about as soon as a blocking
# flock on the same folder does (the kernel hands it over), not after the poller's
# luck. The two waits take turns in one run, so the load of a busy machine falls on
# both.
RSpec.describe 'RubyLLM::FileStore::Directory lock wait', :slow do
  include TmpDirHelper

  let(:root) { File.join(tmp_dir, 'store') }
  let(:store) { RubyLLM::FileStore::Directory.new(root) }

  def timed
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    yield
    Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
  end

  def median(values)
    values.sort[values.size / 2]
  end

  it 'waits at most about twice what a blocking flock waits while another process takes it back to back' do
    store
    lib = File.expand_path('../../../lib', __dir__)
    batch = <<~RUBY
      require 'ruby_llm/file_store'
      store = RubyLLM::FileStore::Directory.new(ARGV[0])
      $stdout.puts 'ready'
      $stdout.flush
      deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 60
      store.with_lock { sleep 0.005 } while Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline && !File.exist?(ARGV[1])
    RUBY
    stop = File.join(tmp_dir, 'stop')
    Open3.popen2('ruby', '-I', lib, '-e', batch, root, stop) do |_stdin, out, waiter|
      expect(out.gets).to eq("ready\n")
      sleep 0.3
      waits = { store: [], flock: [] }
      12.times do
        waits[:store] << timed { store.with_lock { nil } }
        sleep 0.1
        waits[:flock] << timed do
          File.open(root) do |folder|
            folder.flock(File::LOCK_EX)
            folder.flock(File::LOCK_UN)
          end
        end
        sleep 0.1
      end
      File.write(stop, '')
      waiter.value
      store_wait = median(waits[:store])
      flock_wait = median(waits[:flock])
      # Twice the flock's median, and 20 ms for a machine that keeps either waiter off
      # a core for a moment; a poller waited seconds here.
      expect(store_wait).to be <= (2 * flock_wait) + 0.02,
                            "with_lock waited #{waits[:store].map { |w| w.round(3) }}, flock #{waits[:flock].map { |w| w.round(3) }}"
    end
  end
end
