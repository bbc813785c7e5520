//! Markdown made from data: every string from the store reaches a document as a code span
//! ([`code_span`], [`code_cell`]), a fenced block ([`fenced`]) or with every punctuation
//! character escaped ([`text`]), so no tag, link, image or emphasis can come from it.

/// A code span: no newline, no backtick run breaks it out (its fence is longer than any run).
pub fn code_span(s: &str) -> String {
    let flat = s.replace(['\n', '\r'], " ");
    let longest = flat.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    // A space each side keeps a backtick at either end, or an all-space text, inside the span
    // (CommonMark strips one space each side).
    let pad = if flat.starts_with('`') || flat.ends_with('`') || flat.trim().is_empty() {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{flat}{pad}{fence}")
}

/// Text for a Markdown table cell, as code: no `|`, no newline, no backtick run breaks it out.
pub fn code_cell(s: &str) -> String {
    code_span(&s.replace('|', "\\|"))
}

/// Prose that Markdown shows as it is: every ASCII punctuation character backslash-escaped (so
/// no `<tag>`, `[link](…)`, `&entity;`, emphasis or `|` comes from it), lines joined.
pub fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' | '\r' => out.push(' '),
            c if c.is_ascii_punctuation() => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// A fenced code block that no backtick run inside `body` can close.
pub fn fenced(body: &str, lang: &str) -> String {
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}{lang}\n{body}\n{fence}")
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn cells_cannot_break_the_table() {
        assert_eq!(code_cell("a|b"), "`a\\|b`");
        assert_eq!(code_cell("x`y"), "``x`y``");
        assert_eq!(code_cell("`edge"), "`` `edge ``");
        assert_eq!(code_cell("two\nlines"), "`two lines`");
        assert_eq!(code_span("a|b"), "`a|b`");
        assert_eq!(code_span(" "), "`   `");
    }

    #[test]
    fn prose_escapes_every_punctuation_character() {
        assert_eq!(
            text("<img src=x onerror=alert(1)>"),
            "\\<img src\\=x onerror\\=alert\\(1\\)\\>"
        );
        assert_eq!(
            text("[a](javascript:x)\nnext"),
            "\\[a\\]\\(javascript\\:x\\) next"
        );
        assert_eq!(text("worker 07 ünï"), "worker 07 ünï");
        assert_eq!(fenced("a ```` b", "json"), "`````json\na ```` b\n`````");
        assert_eq!(fenced("{}", ""), "```\n{}\n```");
    }
}
