//! What the app and a convert worker say to each other on the worker's pipes.
//!
//! A request is the converters to try, in order, and the document:
//! `[count: u8][kind: u8]...[length: u64 LE][bytes]`. An answer is the text or
//! why there is none: `[tag: u8][length: u64 LE][UTF-8]`, where a refusal's
//! tag says which [`Refusal`] it is and its text holds what that refusal says.
//! Nothing else crosses, so a worker can be replaced by a new one at any time.

use std::io::{self, Read, Write};

use crate::{Converted, Kind, Refusal};

/// The kinds of document a refusal may name, so one read back is the same value.
const NAMED: [&str; 6] = [
    "PDF",
    "Office document",
    "OpenDocument file",
    "EPUB book",
    "HTML page",
    "file",
];

const TEXT: u8 = 0;
const UNREADABLE: u8 = 1;
const NO_TEXT: u8 = 2;
const TOO_MANY_ENTRIES: u8 = 3;
const TOO_LARGE: u8 = 4;
const STOPPED: u8 = 5;

fn kind_code(kind: Kind) -> u8 {
    match kind {
        Kind::Pdf => 1,
        Kind::Office => 2,
        Kind::Html => 3,
    }
}

fn kind_of(code: u8) -> io::Result<Kind> {
    match code {
        1 => Ok(Kind::Pdf),
        2 => Ok(Kind::Office),
        3 => Ok(Kind::Html),
        _ => Err(invalid("an unknown converter")),
    }
}

fn invalid(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_string())
}

fn named(name: &str) -> &'static str {
    NAMED
        .iter()
        .find(|known| **known == name)
        .copied()
        .unwrap_or("file")
}

/// Sends the request to convert `bytes` with `chain`.
pub fn write_request(out: &mut impl Write, chain: &[Kind], bytes: &[u8]) -> io::Result<()> {
    write_request_head(out, chain, bytes.len() as u64)?;
    out.write_all(bytes)?;
    out.flush()
}

/// Sends the head of a request to convert a document of `size` bytes with
/// `chain`: the caller sends the bytes after it, as it reads them.
pub fn write_request_head(out: &mut impl Write, chain: &[Kind], size: u64) -> io::Result<()> {
    let count = u8::try_from(chain.len()).map_err(|_| invalid("too many converters"))?;
    let mut head = vec![count];
    head.extend(chain.iter().map(|kind| kind_code(*kind)));
    head.extend(size.to_le_bytes());
    out.write_all(&head)
}

/// Reads a request: the chain and the document, or `None` when the app closed the pipe.
pub fn read_request(input: &mut impl Read) -> io::Result<Option<(Vec<Kind>, Vec<u8>)>> {
    let mut count = [0u8; 1];
    match input.read_exact(&mut count) {
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        other => other?,
    }
    let mut codes = vec![0u8; count[0] as usize];
    input.read_exact(&mut codes)?;
    let chain = codes.into_iter().map(kind_of).collect::<io::Result<_>>()?;
    let bytes = read_sized(input)?;
    Ok(Some((chain, bytes)))
}

/// Sends what a conversion gave.
pub fn write_answer(out: &mut impl Write, converted: &Converted) -> io::Result<()> {
    let (tag, body) = match converted {
        Ok(text) => (TEXT, text.clone()),
        Err(Refusal::Unreadable(kind, why)) => (UNREADABLE, format!("{kind}\n{why}")),
        Err(Refusal::NoText(kind)) => (NO_TEXT, kind.to_string()),
        Err(Refusal::TooManyEntries(count)) => (TOO_MANY_ENTRIES, count.to_string()),
        Err(Refusal::TooLarge) => (TOO_LARGE, String::new()),
        Err(Refusal::Stopped(why)) => (STOPPED, why.clone()),
    };
    let mut head = vec![tag];
    head.extend((body.len() as u64).to_le_bytes());
    out.write_all(&head)?;
    out.write_all(body.as_bytes())?;
    out.flush()
}

/// Reads what a conversion gave.
pub fn read_answer(input: &mut impl Read) -> io::Result<Converted> {
    let mut tag = [0u8; 1];
    input.read_exact(&mut tag)?;
    let body = String::from_utf8(read_sized(input)?).map_err(|_| invalid("a text not UTF-8"))?;
    Ok(match tag[0] {
        TEXT => Ok(body),
        UNREADABLE => {
            let (kind, why) = body.split_once('\n').unwrap_or(("file", &body));
            Err(Refusal::Unreadable(named(kind), why.to_string()))
        }
        NO_TEXT => Err(Refusal::NoText(named(&body))),
        TOO_MANY_ENTRIES => Err(Refusal::TooManyEntries(
            body.parse().map_err(|_| invalid("a count"))?,
        )),
        TOO_LARGE => Err(Refusal::TooLarge),
        STOPPED => Err(Refusal::Stopped(body)),
        _ => return Err(invalid("an unknown answer")),
    })
}

fn read_sized(input: &mut impl Read) -> io::Result<Vec<u8>> {
    let mut length = [0u8; 8];
    input.read_exact(&mut length)?;
    let length = usize::try_from(u64::from_le_bytes(length)).map_err(|_| invalid("a length"))?;
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(length)
        .map_err(|_| io::Error::new(io::ErrorKind::OutOfMemory, "no memory for the document"))?;
    input.take(length as u64).read_to_end(&mut bytes)?;
    if bytes.len() != length {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_and_every_answer_read_back_as_sent() {
        let mut pipe = Vec::new();
        write_request(&mut pipe, &[Kind::Pdf, Kind::Html], b"%PDF-1.4").unwrap();
        let (chain, bytes) = read_request(&mut &pipe[..]).unwrap().unwrap();
        assert_eq!(chain, vec![Kind::Pdf, Kind::Html]);
        assert_eq!(bytes, b"%PDF-1.4");
        assert!(read_request(&mut &b""[..]).unwrap().is_none());
        for answer in [
            Ok("text\n".to_string()),
            Err(Refusal::Unreadable("PDF", "no trailer\nat all".into())),
            Err(Refusal::NoText("HTML page")),
            Err(Refusal::TooManyEntries(12_000)),
            Err(Refusal::TooLarge),
            Err(Refusal::Stopped("needs more memory".into())),
        ] {
            let mut pipe = Vec::new();
            write_answer(&mut pipe, &answer).unwrap();
            assert_eq!(read_answer(&mut &pipe[..]).unwrap(), answer);
        }
    }

    #[test]
    fn a_cut_short_message_is_an_error_not_a_text() {
        let mut pipe = Vec::new();
        write_answer(&mut pipe, &Ok("whole text".into())).unwrap();
        pipe.truncate(pipe.len() - 3);
        assert!(read_answer(&mut &pipe[..]).is_err());
    }
}
