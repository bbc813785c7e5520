//! The one CSV writer of the planner's tables (RFC 4180: fields separated by commas, records by
//! CRLF, a field holding a comma, a quote or a line break quoted, its quotes doubled).
//!
//! Numbers are written as their digits (64-bit integers exactly; ratios as the JSON documents
//! write them). A text field that a spreadsheet would read as a formula (one starting with `=`,
//! `+`, `-`, `@`, a tab or a carriage return) gets a leading apostrophe: a store's names are
//! data, never a formula a spreadsheet runs (docs/user-guide.md, "Tables as CSV").

use std::fmt::{Display, Write};

/// A CSV text being written, one record at a time.
pub(super) struct Csv {
    out: String,
    fresh: bool,
}

impl Csv {
    /// A CSV text starting with its header record.
    pub(super) fn new(header: &[&str]) -> Csv {
        let mut c = Csv {
            out: String::new(),
            fresh: true,
        };
        for h in header {
            c.text(h);
        }
        c.end();
        c
    }

    fn sep(&mut self) {
        if !std::mem::replace(&mut self.fresh, false) {
            self.out.push(',');
        }
    }

    /// A text field: quoted when it must be, guarded when a spreadsheet would run it.
    pub(super) fn text(&mut self, s: &str) -> &mut Csv {
        self.sep();
        let guard = s.starts_with(['=', '+', '-', '@', '\t', '\r']);
        let text = if guard { format!("'{s}") } else { s.to_string() };
        if text.contains([',', '"', '\n', '\r']) {
            let _ = write!(self.out, "\"{}\"", text.replace('"', "\"\""));
        } else {
            self.out.push_str(&text);
        }
        self
    }

    /// A text field, empty when there is none.
    pub(super) fn maybe(&mut self, s: Option<&str>) -> &mut Csv {
        self.text(s.unwrap_or(""))
    }

    /// A number (or `true`/`false`), written as it displays.
    pub(super) fn num(&mut self, v: impl Display) -> &mut Csv {
        self.sep();
        let _ = write!(self.out, "{v}");
        self
    }

    /// A number, empty when there is none.
    pub(super) fn maybe_num<T: Display>(&mut self, v: Option<T>) -> &mut Csv {
        match v {
            Some(v) => self.num(v),
            None => self.text(""),
        }
    }

    /// A ratio as the JSON documents write it (the shortest text that reads back the same).
    pub(super) fn ratio(&mut self, v: f64) -> &mut Csv {
        let text = serde_json::to_string(&v).unwrap_or_default();
        self.sep();
        self.out.push_str(&text);
        self
    }

    /// Ends the record.
    pub(super) fn end(&mut self) {
        self.out.push_str("\r\n");
        self.fresh = true;
    }

    pub(super) fn finish(self) -> String {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn fields_are_quoted_and_formulas_guarded_as_rfc_4180_and_owasp_say() {
        let mut c = Csv::new(&["name", "n"]);
        c.text("a,b").num(1u64);
        c.end();
        c.text("say \"hi\"").num(u64::MAX);
        c.end();
        c.text("line\nbreak").maybe_num(None::<u32>);
        c.end();
        c.text("=1+2").ratio(1.5);
        c.end();
        c.text("-x").maybe(None);
        c.end();
        assert_eq!(
            c.finish(),
            "name,n\r\n\"a,b\",1\r\n\"say \"\"hi\"\"\",18446744073709551615\r\n\"line\nbreak\",\r\n'=1+2,1.5\r\n'-x,\r\n"
        );
    }
}
