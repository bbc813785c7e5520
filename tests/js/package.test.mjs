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

test('Planner: the demo loads, plans, and reports exact u64 as strings', () => {
  const p = planner.Planner.demo(400, 8, 1);
  const info = p.info();
  assert.equal(info.members.length, 8);
  assert.match(info.seed, /^\d+$/);
  assert.ok(info.warnings.some((w) => w.code === 'unreadable_presence' && w.key === 'worker.worker-03'));
  const v = p.plan('', 8);
  const lanes = v.members.reduce((n, m) => n + m.lanes, 0);
  assert.equal(lanes, v.counts.assigned);
  for (const m of v.members) {
    assert.ok(m.lanes <= m.cap, `${m.name}: ${m.lanes}/${m.cap}`);
    assert.match(m.loadPlanned, /^\d+$/);
  }
  assert.equal(v.moves.length, v.churnMoves);
  const doc = p.planJson('', 8);
  assert.match(doc, /^\{"job":"demo"/);
  p.free();
});

test('Planner: snapshot errors carry code, bucket and key', () => {
  const p = planner.Planner.demo(50, 3, 1);
  const good = p.planJson('', 8);
  assert.ok(good.length > 0);
  p.free();
  const bad = '{"format":"spate-planner-snapshot/1","job":"j","taken_at_ms":0,"state":{"name":"spate_coordination_j_state","history":1,"max_age_ms":0,"entries":[{"key":"split.a","revision":1,"created_ms":0,"value":{"schema":4,"id":"a"}}]},"lease":{"name":"spate_coordination_j_lease","history":1,"max_age_ms":30000,"entries":[]}}';
  assert.throws(() => planner.Planner.fromText(bad), (e) => e instanceof Error && e.code === 'wrong_schema'
    && e.bucket === 'spate_coordination_j_state' && e.key === 'split.a');
  assert.throws(() => planner.Planner.fromText('{"format":"spate-planner-snapshot/9"}'), (e) => e.code === 'unsupported_format');
  assert.throws(() => planner.Planner.fromBytes(new Uint8Array([0xff, 0xfe])), (e) => e.code === 'not_json');
});

test('Planner: scenario errors carry code and path; the handle stays usable', () => {
  const p = planner.Planner.demo(50, 3, 1);
  assert.throws(() => p.plan('{"changes":[{"op":"set_cap","member":"nobody","cap":1}]}', 8),
    (e) => e.code === 'unknown_member' && e.path === 'changes[0].member');
  assert.throws(() => p.plan('{"changes":[{"op":"fly"}]}', 8), (e) => e.code === 'invalid_scenario');
  assert.equal(p.plan('{"changes":[{"op":"add_member","member":"x","cap":2}]}', 8).members.length, 4);
  p.free();
});
