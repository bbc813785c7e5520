#!/usr/bin/env node
// Runs conformance vector files through the wasm test build of the decision core (web/pkg-test).
//   node tests/conformance/run.mjs FILE...
// Prints one line per failing case and ends with `N passed, M failed`; exit 1 on any failure.
import { readFile } from 'node:fs/promises';
import { loadPlanner } from '../wasm.mjs';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node tests/conformance/run.mjs FILE...');
  process.exit(2);
}
const { runConformance } = await loadPlanner();
let passed = 0;
let failed = 0;
for (const file of files) {
  let results;
  try {
    results = runConformance(await readFile(file, 'utf8'));
  } catch (e) {
    console.log(`FAIL ${file}: ${e.code ? `${e.code}: ` : ''}${e.message}`);
    failed++;
    continue;
  }
  for (const r of results) {
    if (r.passed) { passed++; continue; }
    failed++;
    console.log(`FAIL ${r.name} (${r.op}): first difference ${r.first_difference}; expected ${clip(r.expected)} got ${clip(r.got)}`);
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);

function clip(s) {
  return s.length <= 400 ? s : `${s.slice(0, 400)}... (${s.length} chars)`;
}
