# frozen_string_literal: true

require 'rbconfig'
require_relative 'convert_workers'
require_relative 'waiting'

# What a call stopped midway (Thread#kill, Async's Task#stop, a Timeout under a Fiber
# scheduler) could leave behind, looked for from outside the gem: its native work
# still running on a thread of its own, a convert worker still converting, a code
# run's host still running, a store's folder still lent to a run's uid, the folder's
# lock still held.
module LeftBehind
  extend Waiting

  module_function

  # What is left after a stop, one line each; empty when nothing is. +store+ is the
  # folder store the call used. A thread just joined may still show in /proc for a
  # moment while the kernel reaps it, and a worker killed with its conversion may
  # take one to be seen idle: those two are waited for, a second at most, where work
  # left running would go on for seconds.
  def after_stop(store)
    root = store.local_root
    left = []
    threads = 0
    wait_until(1) { (threads = work_threads).zero? }
    left << "#{threads} thread(s) still doing native work" if threads.positive?
    busy = []
    wait_until(1) { (busy = ConvertWorkers.busy).empty? }
    left << "convert worker(s) #{busy} still converting" if busy.any?
    left << "code run host(s) #{ConvertWorkers.hosts} still running" if ConvertWorkers.hosts.any?
    left << "#{root} not given back (#{owner(root)})" unless given_back?(root)
    left << "#{root}'s lock still held for another process" unless free_for_a_process?(root)
    left << "the store's lock still held for another thread" unless taken_by_a_thread?(store)
    left
  end

  # The threads of this process that run native work for a fiber (nogvl/offload.rs
  # names them).
  def work_threads
    Dir['/proc/self/task/*/comm'].count do |comm|
      File.read(comm) == "file_store work\n"
    rescue SystemCallError
      false
    end
  end

  # Whether +root+ is the app's, as before a run lent it: its owner, and writable by
  # no one else (a run may make it 0777).
  def given_back?(root)
    stat = File.stat(root)
    stat.uid == Process.uid && (stat.mode & 0o022).zero?
  end

  def owner(root)
    stat = File.stat(root)
    format('uid %<uid>d, mode %<mode>o', uid: stat.uid, mode: stat.mode & 0o7777)
  end

  # Whether another thread of this process takes +store+'s lock within a second.
  def taken_by_a_thread?(store)
    taker = Thread.new { store.with_lock { :taken } }
    taker.join(1)&.value == :taken
  ensure
    taker&.kill
  end

  # Whether another process takes the folder store's lock (+flock+ on its folder) at
  # once.
  def free_for_a_process?(root)
    system(RbConfig.ruby, '-e', 'exit File.open(ARGV[0]).flock(File::LOCK_EX | File::LOCK_NB) ? 0 : 1', root)
  end
end
