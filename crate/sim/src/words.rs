//! The simulator's numbers in words for people, as its tables and its Markdown write them: a
//! duration (`1 min 2 s`), an integer with thousands separators, bytes in binary units, a time
//! on the run's clock (`1:02:03`). Exact: integer arithmetic on the document's values.

/// A duration of `ms` milliseconds: below 10 s to the hundredth of a second, below a minute to
/// the tenth (half up, trailing zeros dropped: `1.5 s`, `32.3 s`, `0 s`); from a minute on in
/// whole seconds (half up) as `m min s s`, `m min`, `h h m min` or `h h`.
pub fn duration_text(ms: u64) -> String {
    if ms < 60_000 {
        // hundredths below 10 s, else tenths, both in hundredths of a second
        let hundredths = if ms < 10_000 {
            (ms + 5) / 10
        } else {
            (ms + 50) / 100 * 10
        };
        if hundredths < 6_000 {
            let (whole, frac) = (hundredths / 100, hundredths % 100);
            return match frac {
                0 => format!("{whole} s"),
                f if f % 10 == 0 => format!("{whole}.{} s", f / 10),
                f => format!("{whole}.{f:02} s"),
            };
        }
    }
    let total_s = ms / 1000 + u64::from(ms % 1000 >= 500);
    let (h, m, s) = (total_s / 3600, total_s % 3600 / 60, total_s % 60);
    match (h, m, s) {
        (0, m, 0) => format!("{m} min"),
        (0, m, s) => format!("{m} min {s} s"),
        (h, 0, _) => format!("{h} h"),
        (h, m, _) => format!("{h} h {m} min"),
    }
}

/// An integer with thousands separators: `18,446,744,073,709,551,615`.
pub fn thousands(n: u128) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Bytes in binary units to three significant figures: `512 B`, `1.50 KiB`, `35.0 GiB`,
/// `512 EiB` (EiB is the largest unit).
pub fn binary_bytes(n: u128) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    // scaled to under 1024² of the unit below the one shown, so that the division below
    // keeps three significant figures
    let (mut scaled, mut u) = (n, 1);
    while scaled >= 1024 * 1024 && u < UNITS.len() - 1 {
        scaled /= 1024;
        u += 1;
    }
    let v = scaled as f64 / 1024.0;
    let digits = if v >= 100.0 {
        0
    } else if v >= 10.0 {
        1
    } else {
        2
    };
    format!("{v:.digits$} {}", UNITS[u])
}

/// A time of the run on its clock, whole seconds: `0:45`, `10:00`, `1:02:03`.
pub fn clock_text(ms: u64) -> String {
    let total = ms / 1000;
    let (h, m, s) = (total / 3600, total % 3600 / 60, total % 60);
    match h {
        0 => format!("{m}:{s:02}"),
        h => format!("{h}:{m:02}:{s:02}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn durations_read_as_people_say_them() {
        assert_eq!(duration_text(0), "0 s");
        assert_eq!(duration_text(1_500), "1.5 s");
        assert_eq!(duration_text(1_234), "1.23 s");
        assert_eq!(duration_text(1_235), "1.24 s"); // half up
        assert_eq!(duration_text(9_999), "10 s");
        assert_eq!(duration_text(32_300), "32.3 s");
        assert_eq!(duration_text(32_349), "32.3 s");
        assert_eq!(duration_text(59_949), "59.9 s");
        assert_eq!(duration_text(59_950), "1 min"); // 60.0 s is a minute
        assert_eq!(duration_text(61_234), "1 min 1 s");
        assert_eq!(duration_text(62_000), "1 min 2 s");
        assert_eq!(duration_text(600_000), "10 min");
        assert_eq!(duration_text(3_600_000), "1 h");
        assert_eq!(duration_text(3_720_000), "1 h 2 min");
        assert_eq!(duration_text(u64::MAX), "5124095576030 h 25 min");
    }

    #[test]
    fn integers_and_bytes() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(u64::MAX as u128), "18,446,744,073,709,551,615");
        assert_eq!(binary_bytes(512), "512 B");
        assert_eq!(binary_bytes(1536), "1.50 KiB");
        assert_eq!(binary_bytes(35 << 30), "35.0 GiB");
        assert_eq!(binary_bytes(300 << 20), "300 MiB");
        // 5,658,958,106,497 bytes: 5.147 TiB
        assert_eq!(binary_bytes(5_658_958_106_497), "5.15 TiB");
        assert_eq!(
            binary_bytes(u128::MAX),
            format!("{:.0} EiB", u128::MAX as f64 / (1u128 << 60) as f64)
        );
    }

    #[test]
    fn clock_times() {
        assert_eq!(clock_text(45_000), "0:45");
        assert_eq!(clock_text(600_999), "10:00");
        assert_eq!(clock_text(3_723_000), "1:02:03");
    }
}
