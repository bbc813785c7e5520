//! The TypeScript declarations generated from the Rust types equal the committed
//! `crate/wasm/types.generated.d.ts`, so a renamed field or a new type cannot reach the package
//! without its declaration. `scripts/types` writes the file (this test with `SPATE_WRITE_TYPES=1`).
#![cfg(not(target_arch = "wasm32"))]

use std::path::Path;

#[test]
fn the_generated_declarations_are_the_committed_file() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("types.generated.d.ts");
    let text = spate_planner_wasm::typescript::declarations();
    if std::env::var_os("SPATE_WRITE_TYPES").is_some() {
        std::fs::write(&path, &text).expect("write types.generated.d.ts");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == text,
        "crate/wasm/types.generated.d.ts is not what the Rust types declare: run scripts/types"
    );
}
