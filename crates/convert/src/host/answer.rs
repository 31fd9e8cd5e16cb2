//! How a run ended, as its host sends it back to the app: records
//! ([`file_store_sandbox::records`]) of the outcome's numbers, its output, its
//! notes and what it left (the entries after it and before it, the files it
//! deleted), or of the error that stopped it, then the end mark. What changed is
//! worked out again on the app's side, from what it left.

use std::io::{self, Read, Write};

use file_store_base::error::{Error, Result};
use file_store_sandbox::records::{self, Record};
use file_store_sandbox::snapshot::{self, Snapshot};
use file_store_sandbox::Outcome;

pub(super) fn write(out: &mut impl Write, ran: &Result<Outcome>) -> io::Result<()> {
    match ran {
        Ok(outcome) => write_outcome(out, outcome)?,
        Err(error) => {
            let (tag, text) = match error {
                Error::InvalidArgument(text) => (b'i', text.clone()),
                Error::Cancelled => (b'c', String::new()),
                Error::NotFound(text) => (b'f', text.clone()),
                other => (b's', other.to_string()),
            };
            let mut bytes = vec![tag];
            bytes.extend(text.as_bytes());
            records::record(out, b'E', &bytes)?;
        }
    }
    records::end(out)
}

fn write_outcome(out: &mut impl Write, outcome: &Outcome) -> io::Result<()> {
    let shown = |value: Option<i32>| value.map_or("-".to_string(), |v| v.to_string());
    let flags = u8::from(outcome.timed_out)
        | u8::from(outcome.processes_limited) << 1
        | u8::from(outcome.memory_limited) << 2
        | u8::from(outcome.cpu_limited) << 3;
    let numbers = format!(
        "{} {} {flags} {} {} {} {}",
        shown(outcome.exit_code),
        shown(outcome.signal),
        outcome.uid,
        outcome.stdout_bytes,
        outcome.stderr_bytes,
        outcome.elapsed.as_nanos()
    );
    records::record(out, b'x', numbers.as_bytes())?;
    records::record(out, b'o', outcome.stdout.as_bytes())?;
    records::record(out, b'e', outcome.stderr.as_bytes())?;
    for note in &outcome.notes {
        records::record(out, b'n', note.as_bytes())?;
    }
    for (path, stamp) in &outcome.after {
        records::stamped(out, b's', path, stamp)?;
    }
    for (path, stamp) in &outcome.before {
        records::stamped(out, b'b', path, stamp)?;
    }
    for path in &outcome.changes.deleted {
        records::record(out, b'd', path.as_bytes())?;
    }
    Ok(())
}

pub(super) fn read(input: &mut impl Read) -> Result<Outcome> {
    let ended = || {
        Error::Sandbox(
            "the run's host ended before it said how the run ended (killed from outside, or its \
             supervisor gone)"
                .to_string(),
        )
    };
    let mut outcome = Outcome {
        exit_code: None,
        signal: None,
        timed_out: false,
        stdout: String::new(),
        stderr: String::new(),
        stdout_bytes: 0,
        stderr_bytes: 0,
        elapsed: Default::default(),
        processes_limited: false,
        memory_limited: false,
        cpu_limited: false,
        uid: 0,
        before: Snapshot::new(),
        after: Snapshot::new(),
        changes: Default::default(),
        notes: Vec::new(),
    };
    let mut numbers = None;
    let mut deleted = Vec::new();
    loop {
        match records::next(input).ok_or_else(ended)? {
            Record::End => break,
            Record::Stamped(b's', path, stamp) => drop(outcome.after.insert(path, stamp)),
            Record::Stamped(_, path, stamp) => drop(outcome.before.insert(path, stamp)),
            Record::Text(b'o', text) => outcome.stdout = text,
            Record::Text(b'e', text) => outcome.stderr = text,
            Record::Text(b'n', text) => outcome.notes.push(text),
            Record::Text(b'd', text) => deleted.push(text),
            Record::Text(b'x', text) => numbers = Some(text),
            Record::Text(b'E', text) => return Err(error(&text)),
            Record::Text(..) => return Err(ended()),
        }
    }
    numbers
        .as_deref()
        .and_then(|text| read_numbers(text, &mut outcome))
        .ok_or_else(ended)?;
    outcome.changes = snapshot::diff(&outcome.before, &outcome.after);
    outcome.changes.deleted = deleted;
    Ok(outcome)
}

/// The numbers `write_outcome` wrote, into `outcome`.
fn read_numbers(text: &str, outcome: &mut Outcome) -> Option<()> {
    let mut fields = text.split(' ');
    let mut optional = || match fields.next()? {
        "-" => Some(None),
        number => number.parse().ok().map(Some),
    };
    outcome.exit_code = optional()?;
    outcome.signal = optional()?;
    let mut number = || fields.next()?.parse::<u64>().ok();
    let flags = number()?;
    outcome.timed_out = flags & 1 != 0;
    outcome.processes_limited = flags & 2 != 0;
    outcome.memory_limited = flags & 4 != 0;
    outcome.cpu_limited = flags & 8 != 0;
    outcome.uid = u32::try_from(number()?).ok()?;
    outcome.stdout_bytes = number()?;
    outcome.stderr_bytes = number()?;
    outcome.elapsed = std::time::Duration::from_nanos(number()?);
    Some(())
}

fn error(text: &str) -> Error {
    let (tag, message) = text.split_at(text.len().min(1));
    let message = message.to_string();
    match tag {
        "i" => Error::InvalidArgument(message),
        "c" => Error::Cancelled,
        "f" => Error::NotFound(message),
        _ => Error::Sandbox(message),
    }
}
