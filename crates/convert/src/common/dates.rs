//! Spreadsheet numbers shown as dates or times: which number formats are dates
//! (Excel's built-in ids and custom codes), and a serial day number as an ISO
//! 8601 date, time or both, in the 1900 or the 1904 date system.

/// What a number format shows of a serial number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shows {
    Date,
    Time,
    DateTime,
    /// Elapsed time, `[h]:mm:ss`: hours past 24 are kept.
    Duration,
}

/// What built-in format `id` shows, if a date or time (ECMA-376 18.8.30).
pub fn builtin(id: u32) -> Option<Shows> {
    match id {
        14..=17 => Some(Shows::Date),
        18..=21 | 45 | 47 => Some(Shows::Time),
        22 => Some(Shows::DateTime),
        46 => Some(Shows::Duration),
        _ => None,
    }
}

/// What custom format `code` shows, if a date or time: its first section, with
/// quoted text, escaped characters and `[...]` colours and locales left out,
/// has d, y (a date), h or s (a time); m is a month unless a time is there.
pub fn custom(code: &str) -> Option<Shows> {
    let section = code.split(';').next().unwrap_or("").to_ascii_lowercase();
    let section = section.replace("general", "");
    let (mut date, mut time, mut elapsed) = (false, false, false);
    let mut month = false;
    let mut chars = section.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                for q in chars.by_ref() {
                    if q == '"' {
                        break;
                    }
                }
            }
            '\\' | '_' | '*' => {
                chars.next();
            }
            '[' => {
                let inner: String = chars.by_ref().take_while(|&q| q != ']').collect();
                if !inner.is_empty() && inner.chars().all(|q| matches!(q, 'h' | 'm' | 's')) {
                    elapsed = true;
                }
            }
            'd' | 'y' => date = true,
            'h' | 's' => time = true,
            'm' => month = true,
            // A digit placeholder before any date part means a number (after
            // one, it is a fraction of a second: `ss.00`).
            '0' | '#' | '?' if !(date || time || month) => return None,
            _ => {}
        }
    }
    if elapsed {
        return Some(Shows::Duration);
    }
    match (date || month && !time, time) {
        (true, true) => Some(Shows::DateTime),
        (true, false) => Some(Shows::Date),
        (false, true) => Some(Shows::Time),
        (false, false) => None,
    }
}

/// The last serial number Excel shows as a date: 9999-12-31.
const MAX_SERIAL: f64 = 2_958_465.0;

/// `serial` shown as `shows` says: `2024-03-15`, `14:30:00`,
/// `2024-03-15T14:30:00` or `36:15:00`; None when it is out of range.
pub fn format(serial: f64, shows: Shows, date1904: bool) -> Option<String> {
    if !serial.is_finite() || !(0.0..=MAX_SERIAL).contains(&serial) {
        return None;
    }
    // Rounded to the second, as Excel shows it.
    let seconds = (serial * 86_400.0).round() as i64;
    let (days, of_day) = (seconds / 86_400, seconds % 86_400);
    let time = format!(
        "{:02}:{:02}:{:02}",
        of_day / 3600,
        of_day / 60 % 60,
        of_day % 60
    );
    Some(match shows {
        Shows::Time => time,
        Shows::Duration => format!(
            "{}:{:02}:{:02}",
            seconds / 3600,
            seconds / 60 % 60,
            seconds % 60
        ),
        Shows::Date => date(days, date1904),
        Shows::DateTime => format!("{}T{time}", date(days, date1904)),
    })
}

/// Day `days` of the date system as `YYYY-MM-DD`.
fn date(days: i64, date1904: bool) -> String {
    if date1904 {
        // Day 0 is 1904-01-01.
        return civil(days + days_from_civil(1904, 1, 1));
    }
    match days {
        // Excel counts 1900-02-29, a day that never was (Lotus 1-2-3 did).
        60 => "1900-02-29".to_string(),
        // Day 1 is 1900-01-01; day 0 is shown as 1900-01-00.
        0 => "1900-01-00".to_string(),
        1..=59 => civil(days - 1 + days_from_civil(1900, 1, 1)),
        _ => civil(days - 2 + days_from_civil(1900, 1, 1)),
    }
}

/// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date of a day counted from 1970-01-01, as `YYYY-MM-DD`.
fn civil(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// An ODF time value (`PT14H30M00S`, an ISO 8601 duration) as `14:30:00`.
pub(crate) fn duration(value: &str) -> String {
    let Some(rest) = value.strip_prefix("PT") else {
        return value.to_string();
    };
    let (mut hours, mut minutes, mut seconds) = (0u64, 0u64, 0f64);
    let mut number = String::new();
    for c in rest.chars() {
        match c {
            'H' => hours = number.parse().unwrap_or(0),
            'M' => minutes = number.parse().unwrap_or(0),
            'S' => seconds = number.parse().unwrap_or(0.0),
            c => {
                number.push(c);
                continue;
            }
        }
        number.clear();
    }
    format!("{hours:02}:{minutes:02}:{:02}", seconds.round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tells_date_formats_from_number_formats() {
        assert_eq!(custom("yyyy-mm-dd"), Some(Shows::Date));
        assert_eq!(custom("[$-409]mmmm d, yyyy;@"), Some(Shows::Date));
        assert_eq!(custom("dd/mm/yyyy hh:mm"), Some(Shows::DateTime));
        assert_eq!(custom("h:mm AM/PM"), Some(Shows::Time));
        assert_eq!(custom("mm:ss"), Some(Shows::Time));
        assert_eq!(custom("[h]:mm:ss"), Some(Shows::Duration));
        assert_eq!(custom("mmm"), Some(Shows::Date));
        assert_eq!(custom("#,##0.00"), None);
        assert_eq!(custom("[Red]0.00"), None);
        assert_eq!(custom("0.00\" days\""), None);
        assert_eq!(custom("\"Day\" General"), None);
        assert_eq!(custom("hh:mm:ss.00"), Some(Shows::Time));
        assert_eq!(custom("YYYY\\-MM\\-DD"), Some(Shows::Date));
        assert_eq!(builtin(14), Some(Shows::Date));
        assert_eq!(builtin(22), Some(Shows::DateTime));
        assert_eq!(builtin(2), None);
    }

    #[test]
    fn shows_serials_as_iso_dates_and_times() {
        assert_eq!(format(45366.0, Shows::Date, false).unwrap(), "2024-03-15");
        assert_eq!(
            format(45_366.604_166_7, Shows::DateTime, false).unwrap(),
            "2024-03-15T14:30:00"
        );
        assert_eq!(format(0.5, Shows::Time, false).unwrap(), "12:00:00");
        assert_eq!(format(1.5, Shows::Duration, false).unwrap(), "36:00:00");
        assert_eq!(format(1.0, Shows::Date, false).unwrap(), "1900-01-01");
        assert_eq!(format(59.0, Shows::Date, false).unwrap(), "1900-02-28");
        assert_eq!(format(60.0, Shows::Date, false).unwrap(), "1900-02-29");
        assert_eq!(format(61.0, Shows::Date, false).unwrap(), "1900-03-01");
        assert_eq!(format(43904.0, Shows::Date, true).unwrap(), "2024-03-15");
        assert_eq!(format(0.0, Shows::Date, true).unwrap(), "1904-01-01");
        assert_eq!(
            format(2_958_465.0, Shows::Date, false).unwrap(),
            "9999-12-31"
        );
        assert_eq!(format(-1.0, Shows::Date, false), None);
        assert_eq!(format(1e300, Shows::Date, false), None);
    }

    #[test]
    fn reads_odf_time_values() {
        assert_eq!(super::duration("PT14H30M00S"), "14:30:00");
        assert_eq!(super::duration("PT09H05M07.4S"), "09:05:07");
        assert_eq!(super::duration("PT36H00M00S"), "36:00:00");
    }
}
