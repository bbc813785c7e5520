//! Times for people: the store's milliseconds since the Unix epoch as a UTC date and clock
//! (`2026-12-05 15:04:11 UTC`), and durations as `35 s`, `4 min 5 s`, `2 h 3 min`. Every
//! document and terminal line of the core writes times this one way.

/// The civil date of day `z` since 1970-01-01 (proleptic Gregorian): (year, month, day).
fn civil(z: i64) -> (i64, u32, u32) {
    // Shift to an era starting on 0000-03-01, so that a leap day ends each 4-year cycle.
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097); // [0, 146096]
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365; // [0, 399]
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // [0, 365]
    let mp = (5 * doy + 2) / 153; // [0, 11], March first
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// `2026-12-05 15:04:11` (whole seconds, rounded down), without the zone.
fn date_clock(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let (days, s) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

/// `2026-12-05 15:04:11 UTC` (whole seconds, rounded down).
pub fn utc_text(ms: i64) -> String {
    format!("{} UTC", date_clock(ms))
}

/// `2026-12-05 15:04:11.123 UTC`: to the millisecond, for lines that follow a stream.
pub fn utc_millis_text(ms: i64) -> String {
    format!("{}.{:03} UTC", date_clock(ms), ms.rem_euclid(1000))
}

/// `15:04:11 UTC`: the clock alone, for a time on the same day as one written in full.
pub fn utc_clock(ms: i64) -> String {
    let s = ms.div_euclid(1000).rem_euclid(86_400);
    format!("{:02}:{:02}:{:02} UTC", s / 3600, s / 60 % 60, s % 60)
}

/// A duration for people, in whole seconds rounded down: `0 s`, `35 s`, `4 min 5 s`,
/// `2 h 3 min`, `3 d 4 h`. Negative durations are written as 0 s.
pub fn span_text(ms: i64) -> String {
    let s = ms.max(0) / 1000;
    match s {
        0..=119 => format!("{s} s"),
        120..=3_599 => format!("{} min {} s", s / 60, s % 60),
        3_600..=86_399 => format!("{} h {} min", s / 3600, s / 60 % 60),
        _ => format!("{} d {} h", s / 86_400, s / 3600 % 24),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_from_known_instants() {
        assert_eq!(utc_text(0), "1970-01-01 00:00:00 UTC");
        // 2026-01-01T00:00:00Z, the demo's instant.
        assert_eq!(utc_text(1_767_225_600_000), "2026-01-01 00:00:00 UTC");
        // A leap day, and the last second of a leap year.
        assert_eq!(utc_text(951_782_400_000), "2000-02-29 00:00:00 UTC");
        assert_eq!(utc_text(1_735_689_599_999), "2024-12-31 23:59:59 UTC");
        // Before the epoch: seconds round down, to the day before.
        assert_eq!(utc_text(-1), "1969-12-31 23:59:59 UTC");
        assert_eq!(utc_millis_text(-1), "1969-12-31 23:59:59.999 UTC");
        assert_eq!(utc_millis_text(1_767_225_600_042), "2026-01-01 00:00:00.042 UTC");
        assert_eq!(
            utc_clock(1_767_225_600_000 + 15 * 3_600_000 + 4 * 60_000 + 11_999),
            "15:04:11 UTC"
        );
    }

    #[test]
    fn every_day_of_four_centuries_follows_the_one_before() {
        // Walking day by day from 1900 to 2300 the date advances by one calendar day each time.
        let days_in = |y: i64, m: u32| match m {
            2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        };
        let mut prev = civil(-25_567); // 1900-01-01
        assert_eq!(prev, (1900, 1, 1));
        for z in -25_566..120_000 {
            let next = civil(z);
            let expect = match prev {
                (y, 12, 31) => (y + 1, 1, 1),
                (y, m, d) if d == days_in(y, m) => (y, m + 1, 1),
                (y, m, d) => (y, m, d + 1),
            };
            assert_eq!(next, expect, "day {z}");
            prev = next;
        }
    }

    #[test]
    fn spans() {
        assert_eq!(span_text(-5), "0 s");
        assert_eq!(span_text(35_999), "35 s");
        assert_eq!(span_text(119_000), "119 s");
        assert_eq!(span_text(245_000), "4 min 5 s");
        assert_eq!(span_text(7_380_000), "2 h 3 min");
        assert_eq!(span_text(273_600_000), "3 d 4 h");
    }
}
