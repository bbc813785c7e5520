//! Natural order of names: `worker-2` before `worker-10`, as a person counts. Every list of
//! member names a person reads (the review document, the command line's text reports) is in
//! this order; the JSON documents keep their maps in byte order (`BTreeMap`), which other tools
//! read as it is.

use std::cmp::Ordering;

/// Two strings in byte order (`a.cmp(b)`), compared eight bytes at a time. The same order as
/// `Ord for str`, which in the wasm module calls a `memcmp` that compares one byte at a time: the
/// keys a snapshot is sorted by share their first ten or more bytes (`split.part-0001…`).
pub fn byte_cmp(a: &str, b: &str) -> Ordering {
    let (mut x, mut y) = (a.as_bytes(), b.as_bytes());
    while let (Some(p), Some(q)) = (x.first_chunk::<8>(), y.first_chunk::<8>()) {
        let (p, q) = (u64::from_be_bytes(*p), u64::from_be_bytes(*q));
        if p != q {
            return p.cmp(&q);
        }
        (x, y) = (&x[8..], &y[8..]);
    }
    x.cmp(y)
}

/// The run of ASCII digits at the start of `s`, and the rest.
fn digits(s: &[u8]) -> (&[u8], &[u8]) {
    let n = s.iter().take_while(|b| b.is_ascii_digit()).count();
    s.split_at(n)
}

/// Two names in natural order: runs of ASCII digits compare as whole numbers (`2` < `10`;
/// `007` and `7` equal as numbers, the shorter run first), everything else byte by byte (so a
/// digit comes before a letter: `worker-10` < `worker-a`). Names equal in that order are
/// ordered by their bytes, so this is a total order that agrees with `==`.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut x, mut y) = (a.as_bytes(), b.as_bytes());
    loop {
        match (x.first(), y.first()) {
            (None, None) => return a.cmp(b),
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(p), Some(q)) if p.is_ascii_digit() && q.is_ascii_digit() => {
                let ((m, rx), (n, ry)) = (digits(x), digits(y));
                let strip = |d: &[u8]| -> usize { d.iter().take_while(|&&c| c == b'0').count() };
                let (vm, vn) = (&m[strip(m)..], &n[strip(n)..]);
                let by_value = vm.len().cmp(&vn.len()).then_with(|| vm.cmp(vn));
                let order = by_value.then_with(|| m.len().cmp(&n.len()));
                if order != Ordering::Equal {
                    return order;
                }
                (x, y) = (rx, ry);
            }
            (Some(p), Some(q)) => {
                if p != q {
                    return p.cmp(q);
                }
                (x, y) = (&x[1..], &y[1..]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn numbers_count_and_letters_follow_digits() {
        let mut v = vec![
            "worker-a",
            "worker-10",
            "worker-2",
            "worker-02",
            "w",
            "worker-1b",
            "worker-1",
        ];
        v.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            v,
            [
                "w",
                "worker-1",
                "worker-1b",
                "worker-2",
                "worker-02",
                "worker-10",
                "worker-a"
            ]
        );
        assert_eq!(natural_cmp("x", "x"), Ordering::Equal);
        assert_eq!(
            natural_cmp("a99999999999999999999999", "a100000000000000000000000"),
            Ordering::Less
        );
    }

    #[test]
    fn byte_order_at_the_word_edges() {
        // a difference in the first word, in a later one, in the tail; a prefix; a byte above 0x7f
        let cases = [
            ("split.part-000001", "split.part-000002", Ordering::Less),
            ("spec.part-9", "split.part-1", Ordering::Less),
            ("split.pa", "split.pa", Ordering::Equal),
            ("split.pa", "split.part", Ordering::Less),
            ("split.part-0000199", "split.part-00001", Ordering::Greater),
            ("aaaaaaaa\u{e9}", "aaaaaaaaz", Ordering::Greater),
            ("", "a", Ordering::Less),
        ];
        for (a, b, want) in cases {
            assert_eq!(
                (byte_cmp(a, b), byte_cmp(b, a)),
                (want, want.reverse()),
                "{a:?} {b:?}"
            );
        }
    }

    proptest::proptest! {
        #[test]
        fn byte_order_is_the_order_of_str(
            prefix in "[a-z.\\-0-9]{0,20}",
            a in "[a-z\\-0-9\u{e9}]{0,12}",
            b in "[a-z\\-0-9\u{e9}]{0,12}",
        ) {
            let (a, b) = (format!("{prefix}{a}"), format!("{prefix}{b}"));
            proptest::prop_assert_eq!(byte_cmp(&a, &b), a.cmp(&b));
        }
    }
}
