#!/usr/bin/env node
// One live frame's costs in wasm under Node (the production package, web/pkg), on a snapshot
// file: the first state read (as a snapshot, and as a live job), then per change what the
// page's worker does: applyChange (as the change arrives), nextFrame (the fleet joined where the
// change touched it, and the frame's timeline rows), plan (the plan view, converted for JS), info;
// and once findSplits of every split. Medians over ROUNDS changes.
//   spate-planner demo --splits 100000 --members 1000 -o demo.json
//   node tests/bench/live-frame.mjs demo.json [ROUNDS]
import { readFileSync } from 'node:fs';
import { loadPlanner } from '../wasm.mjs';

const [file, rounds = '15'] = process.argv.slice(2);
const { Planner } = await loadPlanner('production');
const text = readFileSync(file, 'utf8');
const bytes = new TextEncoder().encode(text);
const now = JSON.parse(text.slice(0, 2000).match(/"taken_at_ms": ?(-?\d+)/)[0].replace(/^[^:]*:/, '{"t":') + '}').t;

const time = (f) => { const t0 = performance.now(); const v = f(); return [performance.now() - t0, v]; };
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];

const [quickMs, quick] = time(() => Planner.fromBytes(bytes));
const [quickInfoMs] = time(() => quick.info());
const [quickPlanMs] = time(() => quick.plan(''));
quick.free();
const [liveMs, p] = time(() => Planner.fromLive(text, now));
const [splitsMs, all] = time(() => p.findSplits('', '', 0xffffffff));
console.log(`first state: fromBytes ${quickMs.toFixed(0)} ms, info ${quickInfoMs.toFixed(0)} ms, plan ${quickPlanMs.toFixed(0)} ms; fromLive ${liveMs.toFixed(0)} ms; `
  + `findSplits (all ${all.length}) ${splitsMs.toFixed(0)} ms`);

const cols = { applyChange: [], nextFrame: [], plan: [], info: [] };
let rev = Number(p.revisions().split('-')[1]);
for (let i = 0; i < Number(rounds); i++) {
  rev += 1;
  const value = `{"schema":3,"nonce":"nb","max_in_flight":${1 + (i % 9)}}`;
  const change = `{"bucket":"lease","op":"put","entry":{"key":"worker.bench-${i % 50}","revision":${rev},"created_ms":${now},"value":${value}}}`;
  cols.applyChange.push(time(() => p.applyChange(change))[0]);
  cols.nextFrame.push(time(() => p.nextFrame(now + i))[0]);
  cols.plan.push(time(() => p.plan(''))[0]);
  cols.info.push(time(() => p.info())[0]);
}
console.log(`per change (median of ${rounds}): ${Object.entries(cols).map(([k, v]) => `${k} ${median(v).toFixed(1)} ms`).join(', ')}`);
p.free();
