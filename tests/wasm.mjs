// Loads the wasm package in Node: the test build (web/pkg-test, built by scripts/build with
// --features testing: the conformance runner, the benchmark fleet, debugTrap) unless `which`
// is 'production' (web/pkg, which has none of them).
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const dirs = { test: '../web/pkg-test/', production: '../web/pkg/' };

export async function loadPlanner(which = 'test') {
  const pkg = new URL(dirs[which], import.meta.url);
  let mod;
  try {
    mod = await import(new URL('spate_planner.js', pkg));
  } catch (e) {
    throw new Error(`cannot load ${fileURLToPath(pkg)}spate_planner.js (run scripts/build first): ${e.message}`);
  }
  await mod.default({ module_or_path: await readFile(new URL('spate_planner_bg.wasm', pkg)) });
  return mod;
}

export const wasmPath = fileURLToPath(new URL(`${dirs.test}spate_planner_bg.wasm`, import.meta.url));
export const productionWasmPath = fileURLToPath(new URL(`${dirs.production}spate_planner_bg.wasm`, import.meta.url));
