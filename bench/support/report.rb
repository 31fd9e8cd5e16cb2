# frozen_string_literal: true

class StoreBench
  # One line of the table: a workload's best times and peak memory on both stores.
  Row = Struct.new(:label, :native_s, :ruby_s, :native_mb, :ruby_mb) do
    def ratio
      ruby_s / native_s
    end

    def ratio_text
      ratio >= 1 ? format('%.1fx faster', ratio) : format('%.2fx SLOWER', ratio)
    end
  end

  # Prints the table and whether the project's goals hold.
  module Report
    WIDTHS = [-26, 10, 10, -14, 10, 8].freeze

    module_function

    # 50000 as "50,000".
    def number(value)
      value.to_s.reverse.scan(/\d{1,3}/).join(',').reverse
    end

    def table(rows)
      line('workload', 'native s', 'ruby s', 'ruby/native', 'native MB', 'ruby MB')
      rows.each do |row|
        line(row.label, format('%.4f', row.native_s), format('%.4f', row.ruby_s), row.ratio_text,
             format('%.1f', row.native_mb), format('%.1f', row.ruby_mb))
      end
    end

    # Prints +cells+ in columns: a negative width aligns left, a positive one right.
    def line(*cells)
      puts(cells.zip(WIDTHS).map { |cell, width| width.negative? ? cell.ljust(-width) : cell.rjust(width) }.join(' '))
    end

    def goals(rows, listing)
      slower = rows.select { |row| row.ratio < 1 }
      puts format('goal: native >= 3x faster listing: %<ok>s (%<ratio>.2fx)',
                  ok: listing.ratio >= 3 ? 'HOLDS' : 'FAILS', ratio: listing.ratio)
      if slower.empty?
        puts 'goal: native never slower: HOLDS'
      else
        puts "goal: native never slower: FAILS (#{slower.map { |row| "#{row.label}: #{row.ratio_text}" }.join('; ')})"
      end
    end
  end
end
