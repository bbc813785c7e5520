//! How many cases a property test runs. Each test names its default, sized so that the test
//! command's run of it stays within seconds natively and in a debug wasm build in a browser;
//! `PROPTEST_CASES` sets the count outright (scripts/mutants: fewer), `SPATE_PROPTEST_SCALE`
//! multiplies the defaults (scripts/long-tests: more).

/// The case count of a property test whose default is `default`.
pub fn cases(default: u32) -> u32 {
    let var = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u32>().ok());
    if let Some(n) = var("PROPTEST_CASES") {
        return n.max(1);
    }
    default
        .saturating_mul(var("SPATE_PROPTEST_SCALE").unwrap_or(1))
        .max(1)
}
