# frozen_string_literal: true

# A memory cgroup below this process's own, for a spec that runs an app in a container
# of limited memory: cgroup v1's memory hierarchy, or v2 where its controller is on.
module MemoryCgroup
  module_function

  # A new cgroup holding at most +bytes+, no swap: its folder, or nil where this process
  # may make none (not root, and none delegated to it).
  def make(bytes)
    v1 = own[/^\d+:memory:(.*)$/, 1]
    parent = v1 ? File.join('/sys/fs/cgroup/memory', v1) : File.join('/sys/fs/cgroup', own[/^0::(.*)$/, 1].to_s)
    group = File.join(parent, "ruby_llm_oom_#{Process.pid}")
    Dir.mkdir(group)
    limit, swap = v1 ? %w[memory.limit_in_bytes memory.memsw.limit_in_bytes] : %w[memory.max memory.swap.max]
    File.write(File.join(group, limit), bytes.to_s)
    write_if_there(File.join(group, swap), v1 ? bytes.to_s : '0')
    group
  rescue SystemCallError
    Dir.rmdir(group) if group && File.directory?(group)
    nil
  end

  # How many times the OOM killer has killed in +group+.
  def oom_kills(group)
    events = %w[memory.oom_control memory.events].map { |name| File.join(group, name) }.find { |path| File.exist?(path) }
    File.read(events)[/^oom_kill (\d+)/, 1].to_i
  end

  # Kills what +group+ still holds and removes it.
  def remove(group)
    20.times do
      File.read(File.join(group, 'cgroup.procs')).split.each { |pid| kill(pid.to_i) }
      return Dir.rmdir(group)
    rescue Errno::EBUSY
      sleep 0.1
    end
  end

  def own = File.read('/proc/self/cgroup')

  def write_if_there(path, value)
    File.write(path, value) if File.exist?(path)
  end

  def kill(pid)
    Process.kill(:KILL, pid)
  rescue Errno::ESRCH
    nil
  end
end
