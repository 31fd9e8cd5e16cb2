//! Text slicing for reading files: binary detection, numbered line windows
//! (`cat -n` style, `lines`) and character windows (`chars`), all streaming in
//! constant memory over a lossy UTF-8 decoder (`utf8`), and what `read_file`
//! shows of them with their trailers under the result ceiling (`shown`).

mod ceiling;
mod chars;
mod format;
mod hashing;
mod lines;
mod shown;
mod utf8;
pub use ceiling::{cap_result, MAX_RESULT_CHARS, TRAILER_ROOM};
pub use chars::{read_chars, trailer_for_chars, CharSlice};
pub use format::truncation_marker;
pub use format::{escape_breaks, looks_binary, number_line, truncate_line};
pub use hashing::Hashing;
pub use lines::{read_lines, read_lines_counted, trailer_for_lines, LineSlice};
pub use shown::{chars_shown, lines_shown, Shown, COUNT_BUDGET, MAX_READ_CHARS};

#[cfg(test)]
mod tests;
