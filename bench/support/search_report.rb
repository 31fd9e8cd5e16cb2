# frozen_string_literal: true

# The table bench/search.rb prints, and its goals evaluated on the rows.
class SearchReport
  Row = Struct.new(:workload, :tool, :seconds, :ours_seconds, :peak_mb) do
    # This tool's time over ours: above 1 the tool is slower than ours.
    def ratio
      seconds / ours_seconds
    end

    # Our time over this tool's: above 1 ours is slower.
    def ours_over
      ours_seconds / seconds
    end
  end

  WIDTHS = [-34, -36, 9, 10, 9].freeze

  def initialize
    @rows = []
  end

  # Adds the rows of one workload; +samples+ maps each tool to its Sample, ours first.
  def add(workload, samples)
    ours = samples.values.first.seconds
    samples.each { |tool, sample| @rows << Row.new(workload, tool, sample.seconds, ours, sample.peak_mb) }
  end

  def table
    line('workload', 'tool', 'seconds', 'time/ours', 'peak MB')
    @rows.chunk_while { |a, b| a.workload == b.workload }.each do |rows|
      rows.each_with_index do |row, index|
        line(index.zero? ? row.workload : '', row.tool, format('%.3f', row.seconds), format('%.2fx', row.ratio),
             format('%.1f', row.peak_mb))
      end
    end
    puts '(time/ours: the tool\'s best time over ours; above 1.00x the tool is slower than search_files/read_file)'
  end

  # Prints each goal with HOLDS or FAILS and the numbers behind it. +searches+ and
  # +read+ are workload labels; +tools+ names the rows to compare with.
  def goals(searches, read, tools)
    search_goal('search within 1.5x of ripgrep', searches, tools[:rg], 'ours/rg', :ours_over) { |x| x <= 1.5 }
    search_goal('search at least 10x faster than pure Ruby', searches, tools[:ruby], 'ruby/ours', :ratio) do |x|
      x >= 10
    end
    sed = find(read, tools[:sed])
    verdict('read within 1.5x of sed', sed.ours_over <= 1.5,
            format('ours %<ours>.3fs, %<tool>s %<sed>.3fs, ours/sed %<x>.2f',
                   ours: sed.ours_seconds, tool: tools[:sed], sed: sed.seconds, x: sed.ours_over))
    ours = find(read, tools[:ours_read])
    verdict('read peak memory under 64 MB', ours.peak_mb < 64, format('%.1f MB', ours.peak_mb))
  end

  private

  # A goal on every search: +ratio+ of each row, named +name+, must satisfy +holds+.
  def search_goal(goal, searches, tool, name, ratio, &holds)
    rows = searches.map { |workload| find(workload, tool) }
    short = tool.split.first(2).join(' ')
    verdict(goal, rows.map(&ratio).all?(&holds), rows.map do |row|
      format('%<workload>s: ours %<ours>.3fs, %<tool>s %<tool_s>.3fs, %<name>s %<x>.2f',
             workload: row.workload.split.first(2).join(' '), ours: row.ours_seconds, tool: short,
             tool_s: row.seconds, name:, x: row.public_send(ratio))
    end.join('; '))
  end

  def verdict(goal, holds, detail)
    puts "goal: #{goal}: #{holds ? 'HOLDS' : 'FAILS'} (#{detail})"
  end

  def find(workload, tool)
    @rows.find { |row| row.workload == workload && row.tool == tool } or raise "no row #{workload} / #{tool}"
  end

  # Prints +cells+ in columns: a negative width aligns left, a positive one right.
  def line(*cells)
    puts(cells.zip(WIDTHS).map { |cell, width| width.negative? ? cell.ljust(-width) : cell.rjust(width) }
      .join(' ').rstrip)
  end
end
