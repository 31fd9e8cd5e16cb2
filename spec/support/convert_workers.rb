# frozen_string_literal: true

# The convert workers of a process, as /proc shows them: the children of its
# supervisor, the `file_store_convert supervise <pid>` process started outside it.
module ConvertWorkers
  module_function

  # The pid of +app+'s supervisor, or nil when it has none.
  def supervisor(app = Process.pid)
    Dir['/proc/[0-9]*/cmdline'].each do |cmdline|
      return File.basename(File.dirname(cmdline)).to_i if File.binread(cmdline).end_with?("\0supervise\0#{app}\0")
    rescue SystemCallError
      next
    end
    nil
  end

  # The pids of +app+'s workers (its own children, where a build has no supervisor).
  def pids(app = Process.pid)
    parent = supervisor(app)
    children = "/proc/#{parent}/task/#{parent}/children"
    return File.read(children).split.map(&:to_i) if parent && File.exist?(children)

    children_named(parent || app)
  end

  # The pids of +app+'s code runs' hosts: its supervisor's children started as
  # `file_store_convert run`.
  def hosts(app = Process.pid)
    pids(app).select do |pid|
      File.binread("/proc/#{pid}/cmdline").end_with?("\0run\0")
    rescue SystemCallError
      false
    end
  end

  # The pids of +app+'s workers that spent CPU time converting over the next +seconds+
  # (2 clock ticks or more: a worker waiting for its next document spends none).
  def busy(app = Process.pid, seconds: 0.2)
    before = (pids(app) - hosts(app)).to_h { |pid| [pid, cpu_ticks(pid)] }
    sleep seconds
    before.select { |pid, ticks| cpu_ticks(pid) - ticks >= 2 }.keys
  end

  # The pids of +parent+'s children that are convert workers, from each process's stat.
  def children_named(parent)
    Dir['/proc/[0-9]*/stat'].filter_map do |stat|
      fields = File.read(stat)
      next unless fields.include?('(file_store_conv') && fields.split(') ').last.to_s.split[1].to_i == parent

      File.basename(File.dirname(stat)).to_i
    rescue SystemCallError
      nil
    end
  end

  # The fields of process +pid+'s stat after its name, from the state on; nil when
  # it is gone.
  def stat_fields(pid)
    File.read("/proc/#{pid}/stat").split(') ').last.to_s.split
  rescue SystemCallError
    nil
  end

  # The state letter of process +pid+ (R running, S sleeping, T stopped, Z zombie).
  def state(pid)
    stat_fields(pid)&.first
  end

  # The CPU time process +pid+ has used, in clock ticks (utime + stime), 0 when it is gone.
  def cpu_ticks(pid)
    stat_fields(pid)&.values_at(11, 12)&.sum(&:to_i) || 0
  end

  # The resident memory of +app+'s workers together, in bytes.
  def rss(app = Process.pid)
    pids(app).sum do |pid|
      File.read("/proc/#{pid}/status")[/VmRSS:\s+(\d+)/, 1].to_i << 10
    rescue SystemCallError
      0
    end
  end
end
