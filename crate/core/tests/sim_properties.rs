//! Property tests of the simulator over random fleets and scripts.

mod sim_support;

use proptest::prelude::*;
use sim_support::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The fast engine gives exactly the naive engine's outcome.
    #[test]
    fn fast_equals_naive((start, script) in arb_start().prop_flat_map(arb_script)) {
        let fast = run(&start, &script);
        let naive = run_naive(&start, &script);
        prop_assert_eq!(fast, naive);
    }
}
