// The spate-planner binary the Node tests and benchmarks run: SPATE_PLANNER_BIN when set
// (scripts/test sets the debug build its native tests made), else the release build
// (scripts/build).
export const binary = () => process.env.SPATE_PLANNER_BIN || new URL('../target/release/spate-planner', import.meta.url).pathname;
