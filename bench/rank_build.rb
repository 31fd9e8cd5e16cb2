# frozen_string_literal: true

# Building the ranked search's index (crates/rank) from a folder of text against two
# ripgrep passes over the same files, one that visits every word and one that only
# reads, best of 3 each, with the ratios and the load average
# (bench/support/rank_build.rs). Run by hand from the gem's folder:
#
#   ruby bench/rank_build.rb            # /usr/lib/python3.11's .py and .txt files
#   ruby bench/rank_build.rb FOLDER     # another folder's

require_relative 'support/rust_bench'

crate = File.join(RustBench::ROOT, 'crates/rank')
rank = %(file_store_rank = { package = "ruby_llm_file_store_rank", path = "#{crate}" })
program = RustBench.build('rank_build', 'rank_build.rs', [rank])
exec(program, *ARGV)
