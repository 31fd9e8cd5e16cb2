# frozen_string_literal: true

# The core's streaming UTF-8 decoder (crates/base/src/text/utf8.rs, compiled in from its file)
# against encoding_rs's streaming decoder and std's whole-input String::from_utf8_lossy,
# on the same 64 MB inputs, with the core's read_chars for context; ratios against the
# core's decoder, in one table (bench/support/utf8_decode.rs). Run by hand from the
# gem's folder:
#
#   ruby bench/utf8.rb

require_relative 'support/rust_bench'

program = RustBench.build('utf8_decode', 'utf8_decode.rs', ['CORE', 'encoding_rs = "0.8"'])
exec(program)
