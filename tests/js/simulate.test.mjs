// The timing simulator gives the same document natively and in wasm32: the command line's
// `simulate --json` and the wasm module's `simulate()` on the same snapshot and script.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPlanner } from '../wasm.mjs';
import { binary } from '../binary.mjs';

const run = promisify(execFile);
const bin = binary();

test('simulate: the same seed and input give the same document natively and in wasm', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'spate-sim-'));
  const snapshot = join(dir, 'demo.json');
  await run(bin, ['demo', '--splits', '300', '--members', '6', '--seed', '4', '-o', snapshot]);
  const scripts = [
    { seed: 7, until_ms: 200000, events: [{ at_ms: 0, op: 'crash', member: 'worker-02' }] },
    { seed: 11, until_ms: 150000, config: { rebalance_delay_ms: 0 },
      events: [{ at_ms: 1000, op: 'stop', member: 'worker-01' }, { at_ms: 5000, op: 'start', member: 'fresh', cap: 12 },
        { at_ms: 9000, op: 'crash_leader' }] },
    // Spate 0.3's timing and decisions: jittered reconciles from a per-process phase, leases
    // renewed at every heartbeat, windows ending at the leader's next step, idle departures
    { rules: '0.3', seed: 7, until_ms: 200000, events: [{ at_ms: 0, op: 'crash', member: 'worker-02' }] },
    { rules: '0.3', seed: 12, until_ms: 200000, start: 'planned', data_plane: { drain_ms: { min: 500, max: 20000 }, commit_interval_ms: 3000 },
      events: [{ at_ms: 1000, op: 'stop', member: 'worker-01' }, { at_ms: 5000, op: 'start', member: 'fresh', cap: 12 },
        { at_ms: 9000, op: 'crash_leader' }, { at_ms: 30000, op: 'start', member: 'worker-01' }, { at_ms: 60000, op: 'stop', member: 'fresh' }] },
  ];
  const { Planner } = await loadPlanner('production');
  const planner = Planner.fromText(await readFile(snapshot, 'utf8'));
  for (const [i, script] of scripts.entries()) {
    const file = join(dir, `script-${i}.json`);
    await writeFile(file, JSON.stringify(script));
    const native = (await run(bin, ['simulate', snapshot, '--script', file, '--json'], { maxBuffer: 1 << 28 })).stdout.trim();
    const wasm = planner.simulate(JSON.stringify(script));
    const doc = JSON.parse(native);
    assert.ok(doc.claims.length > 0, `script ${i} makes claims`);
    assert.equal(doc.rules, script.rules ?? '0.1', `script ${i}: the script's rules, else the store's`);
    assert.equal(wasm, native, `script ${i}`);
  }
});

test("the Timeline's defaults are the simulator's: Spate 0.1's, the lease from the snapshot's lease TTL", async () => {
  const { Planner } = await loadPlanner('production');
  const d = Planner.demo(100, 3, 1).simDefaults();
  assert.deepEqual(d, {
    rules: '0.1', start: 'snapshot', rebalance_delay_ms: '20000', lease_duration_ms: '30000', reconcile_interval_ms: '30000', drain_deadline_ms: '10000',
    max_attempts: 4, detection_ms: '0', drain_ms: '0', seed: '0', until_ms: '600000',
  });
  // a lease bucket whose TTL is 45 s: the lease duration follows it
  const dir = await mkdtemp(join(tmpdir(), 'spate-sim-'));
  const snapshot = join(dir, 'ttl.json');
  await run(bin, ['demo', '--splits', '50', '--members', '3', '-o', snapshot]);
  const text = (await readFile(snapshot, 'utf8')).replace('"max_age_ms":30000', '"max_age_ms":45000');
  assert.match(text, /"max_age_ms":45000/);
  assert.equal(Planner.fromText(text).simDefaults().lease_duration_ms, '45000');
});
