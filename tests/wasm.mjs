// Loads the built wasm package (web/pkg, from scripts/build) in Node.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const pkg = new URL('../web/pkg/', import.meta.url);

export async function loadPlanner() {
  let mod;
  try {
    mod = await import(new URL('spate_planner.js', pkg));
  } catch (e) {
    throw new Error(`cannot load ${fileURLToPath(pkg)}spate_planner.js (run scripts/build first): ${e.message}`);
  }
  await mod.default({ module_or_path: await readFile(new URL('spate_planner_bg.wasm', pkg)) });
  return mod;
}

export const wasmPath = fileURLToPath(new URL('spate_planner_bg.wasm', pkg));
