//! Calendar arithmetic for the XBF 2 `date` and `timestamp` types: days and
//! microseconds since the Unix epoch, shown and read as ISO 8601 text.
//!
//! ```
//! assert_eq!(xbf::time::parse_date("2019-01-02"), Some(17_898));
//! assert_eq!(xbf::time::format_timestamp(1_546_398_245_000_000), "2019-01-02T03:04:05Z");
//! ```

/// The (year, month, day) of a day count since 1970-01-01, in the proleptic
/// Gregorian calendar (H. Hinnant's `civil_from_days`).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// The day count since 1970-01-01 of a proleptic Gregorian date, if valid.
pub fn days_from_civil(year: i64, month: u32, day: u32) -> Option<i64> {
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days_in_month = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month[month as usize - 1] {
        return None;
    }
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = i64::from((month + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146_097 + doe - 719_468)
}

/// `2019-01-02` (years outside 0..=9999 get a sign and more digits).
pub fn format_date(days: i64) -> String {
    let (y, m, d) = civil_from_days(days);
    if (0..=9999).contains(&y) {
        format!("{y:04}-{m:02}-{d:02}")
    } else {
        format!("{y:+05}-{m:02}-{d:02}")
    }
}

/// `2019-01-02T03:04:05Z`, with `.ffffff` when there are microseconds.
pub fn format_timestamp(micros: i64) -> String {
    let secs = micros.div_euclid(1_000_000);
    let frac = micros.rem_euclid(1_000_000);
    let (days, sod) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (h, mi, s) = (sod / 3600, sod / 60 % 60, sod % 60);
    let date = format_date(days);
    if frac == 0 {
        format!("{date}T{h:02}:{mi:02}:{s:02}Z")
    } else {
        format!("{date}T{h:02}:{mi:02}:{s:02}.{frac:06}Z")
    }
}

/// Parses `YYYY-MM-DD` into days since 1970-01-01.
pub fn parse_date(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        let part = s.get(r)?;
        part.bytes().all(|c| c.is_ascii_digit()).then(|| part.parse().ok())?
    };
    days_from_civil(i64::from(num(0..4)?), num(5..7)?, num(8..10)?)
}

/// Parses an RFC 3339 timestamp (`2019-01-02T03:04:05.5Z`,
/// `2019-01-02 03:04:05+01:00`) into microseconds since 1970; `None` if it
/// is not one, or has digits below the microsecond that are not zero.
pub fn parse_timestamp(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() < 20 || !matches!(b[10], b'T' | b't' | b' ') || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let days = parse_date(s.get(..10)?)?;
    let two = |i: usize| -> Option<i64> {
        let p = s.get(i..i + 2)?;
        p.bytes().all(|c| c.is_ascii_digit()).then(|| p.parse().ok())?
    };
    let (h, m, sec) = (two(11)?, two(14)?, two(17)?);
    if h > 23 || m > 59 || sec > 59 {
        return None;
    }
    let mut i = 19;
    let mut micros = 0i64;
    if b[i] == b'.' {
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        let digits = &s[start..i];
        if digits.is_empty() || digits.len() > 9 {
            return None;
        }
        let (keep, rest) = digits.split_at(digits.len().min(6));
        if rest.bytes().any(|c| c != b'0') {
            return None;
        }
        micros = format!("{keep:0<6}").parse().ok()?;
    }
    let offset_secs = match s.get(i..)? {
        "Z" | "z" => 0,
        tz if tz.len() == 6 && matches!(tz.as_bytes()[0], b'+' | b'-') && tz.as_bytes()[3] == b':' => {
            let (oh, om) = (two(i + 1)?, two(i + 4)?);
            if oh > 23 || om > 59 {
                return None;
            }
            let v = oh * 3600 + om * 60;
            if tz.starts_with('-') {
                -v
            } else {
                v
            }
        }
        _ => return None,
    };
    let secs = i128::from(days) * 86_400 + i128::from(h * 3600 + m * 60 + sec) - i128::from(offset_secs);
    i64::try_from(secs * 1_000_000 + i128::from(micros)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_round_trip_over_centuries() {
        for days in (-800_000..800_000).step_by(997) {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), Some(days));
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(days_from_civil(2000, 2, 29), Some(11_016));
        assert_eq!(days_from_civil(1900, 2, 29), None);
        assert_eq!(days_from_civil(2019, 13, 1), None);
    }

    #[test]
    fn text_forms() {
        assert_eq!(format_date(17_898), "2019-01-02");
        assert_eq!(format_date(-1), "1969-12-31");
        assert_eq!(parse_date("2019-01-02"), Some(17_898));
        assert_eq!(parse_date("2019-1-02"), None);
        assert_eq!(parse_date("2019-02-30"), None);
        assert_eq!(parse_date("+019-01-02"), None);
        assert_eq!(format_timestamp(0), "1970-01-01T00:00:00Z");
        assert_eq!(format_timestamp(-1), "1969-12-31T23:59:59.999999Z");
        assert_eq!(format_timestamp(1_546_398_245_123_456), "2019-01-02T03:04:05.123456Z");
    }
}
