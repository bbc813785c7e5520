// Tests of the built JS package (web/pkg): the boundary's conventions hold.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { loadPlanner, wasmPath } from '../wasm.mjs';

const planner = await loadPlanner();

test('the module imports nothing from env (no stray C or host symbols)', async () => {
  const mod = await WebAssembly.compile(await readFile(wasmPath));
  const modules = new Set(WebAssembly.Module.imports(mod).map((i) => i.module));
  assert.ok(!modules.has('env'), `imports from env: ${[...modules].join(', ')}`);
});

test('u64 crosses as decimal strings, exactly (the spec examples, 64-bit values)', () => {
  assert.equal(planner.stableHash('7', '1'), '15575724145496192045');
  assert.equal(planner.stableHashStr('7', 'w1'), '15023769660716677941');
  assert.equal(planner.stableHash('18446744073709551615', '18446744073709551615'),
    planner.stableHash('18446744073709551615', '18446744073709551615'));
});

test('a bad u64 is an Error with a stable code and the field', () => {
  assert.throws(() => planner.stableHash('18446744073709551616', '1'),
    (e) => e instanceof Error && e.code === 'invalid_u64' && e.path === 'seed');
  assert.throws(() => planner.stableHash('1', '-1'), (e) => e.code === 'invalid_u64' && e.path === 'value');
});

test('an unknown bench shape is an Error with a code', () => {
  assert.throws(() => new planner.BenchFleet('sideways', 10, 2), (e) => e.code === 'invalid_shape');
});

test('the conformance vectors pass through the package', async () => {
  const results = planner.runConformance(await readFile(new URL('../vectors.json', import.meta.url), 'utf8'));
  assert.ok(results.length >= 1000);
  const failed = results.filter((r) => !r.passed);
  assert.deepEqual(failed, []);
});

test('a vector file of another format is refused with a code', () => {
  assert.throws(() => planner.runConformance('{"format":"other/1","cases":[]}'), (e) => e.code === 'invalid_vectors');
  assert.throws(() => planner.runConformance('not json'), (e) => e.code === 'invalid_vectors');
});

test('the demo plan is consistent: lanes within caps, one member gone, loads as exact strings', () => {
  const plan = planner.demoPlan(400, 8);
  assert.equal(plan.members.length, 7);
  assert.equal(plan.gone.length, 1);
  const lanes = plan.members.reduce((n, m) => n + m.lanes, 0);
  assert.equal(lanes, 400);
  for (const m of plan.members) {
    assert.ok(m.lanes <= m.cap, `${m.name}: ${m.lanes}/${m.cap}`);
    assert.match(m.loadPlanned, /^\d+$/);
    assert.match(m.loadNow, /^\d+$/);
  }
  const gained = plan.members.reduce((n, m) => n + m.gained, 0);
  const lost = plan.members.reduce((n, m) => n + m.lost, 0);
  // Every split of the departed member is gained by someone; moves between members balance.
  assert.ok(gained - lost > 0, `gained ${gained}, lost ${lost}`);
});
