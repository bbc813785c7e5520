//! Store-derived text on a terminal: names, ids, keys and messages come from whoever wrote the
//! store, and a control character in one (ESC starting a terminal sequence, CR overwriting the
//! line, a bidirectional override reordering it) would let the store rewrite what a person
//! reads. [`shown`] is the one function every human report passes such a string through.

use std::borrow::Cow;
use std::fmt::Write;

/// Whether `c` must not reach a terminal as itself: the C0 controls (newline and tab among
/// them: a name is one line), DEL, the C1 controls, and the Unicode bidirectional formatting
/// characters (marks, embeddings, overrides, isolates).
fn hostile(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{61c}' | '\u{200e}' | '\u{200f}'
        | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `s` as it may be printed: each hostile character written as `\u{XX}` (and each backslash as
/// `\\`, so that the escape cannot be forged); `s` itself when it has none.
pub(crate) fn shown(s: &str) -> Cow<'_, str> {
    if !s.chars().any(|c| hostile(c) || c == '\\') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            c if hostile(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// [`shown`] of an optional string, with `none` for `None`.
pub(crate) fn shown_or<'a>(s: Option<&'a str>, none: &'a str) -> Cow<'a, str> {
    s.map_or(Cow::Borrowed(none), shown)
}

/// JSON text as it may be printed: serde writes the C0 controls as escapes but leaves DEL, the C1
/// controls and the bidirectional formatting characters as themselves; each is written here as
/// a JSON `\uXXXX` escape, so the line stays the same JSON value.
pub(crate) fn json_shown(json: &str) -> Cow<'_, str> {
    if !json.chars().any(hostile) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 8);
    for c in json.chars() {
        if hostile(c) {
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// An error of the command `cmd` on standard error, its text escaped as store strings are: an
/// error names keys, members and fields, and quotes what the input held.
pub(crate) fn fail(cmd: &str, e: &impl std::fmt::Display) {
    eprintln!("spate-planner {cmd}: {}", shown(&e.to_string()));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_overrides_are_escaped_and_the_rest_kept() {
        assert_eq!(shown("worker-01"), "worker-01");
        assert!(matches!(shown("ünïcødé ✓"), Cow::Borrowed(_)));
        assert_eq!(shown("a\u{1b}[2Jb"), "a\\u{1b}[2Jb");
        assert_eq!(shown("x\rFAKE\nline\t"), "x\\u{d}FAKE\\u{a}line\\u{9}");
        assert_eq!(shown("\u{9b}31m\u{7f}"), "\\u{9b}31m\\u{7f}");
        assert_eq!(
            shown("abc\u{202e}fed\u{2066}\u{200f}"),
            "abc\\u{202e}fed\\u{2066}\\u{200f}"
        );
        assert_eq!(shown("back\\u{1b}slash"), "back\\\\u{1b}slash");
        assert_eq!(shown_or(None, "(none)"), "(none)");
    }

    #[test]
    fn json_keeps_its_value_with_the_hostile_characters_escaped() {
        let raw = serde_json::Value::from("a\u{9b}b\u{202e}c\u{7f}\u{1b}").to_string();
        let safe = json_shown(&raw);
        assert!(!safe.chars().any(hostile), "{safe}");
        assert_eq!(safe, r#""a\u009bb\u202ec\u007f\u001b""#);
        let back: String = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, "a\u{9b}b\u{202e}c\u{7f}\u{1b}");
        assert!(matches!(json_shown(r#""plain ✓""#), Cow::Borrowed(_)));
    }
}
