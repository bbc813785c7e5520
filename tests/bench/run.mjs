#!/usr/bin/env node
// desired_assignment in wasm under Node, on the fleets of `spate-planner bench`.
//   node tests/bench/run.mjs [SPLITSxMEMBERS ...] [--repeat N]
// Prints `impl shape splits members ms moves bound_hit max/min` per run (median of N).
import { loadPlanner } from '../wasm.mjs';

const args = process.argv.slice(2);
let repeat = 3;
const sizes = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--repeat') repeat = Number(args[++i]);
  else sizes.push(args[i]);
}
if (sizes.length === 0) sizes.push('2000x40', '10000x100', '100000x1000');

const { BenchFleet } = await loadPlanner();
console.log('impl shape splits members ms moves bound_hit max/min');
for (const size of sizes) {
  const [splits, members] = size.split('x').map(Number);
  for (const shape of ['cold', 'scale-out', 'member-loss']) {
    const fleet = new BenchFleet(shape, splits, members);
    const times = [];
    let plan;
    for (let r = 0; r < Math.max(1, repeat); r++) {
      const t0 = performance.now();
      plan = fleet.plan();
      times.push(performance.now() - t0);
    }
    fleet.free();
    times.sort((a, b) => a - b);
    const ms = times[Math.floor(times.length / 2)];
    const ratio = plan.max_min === null ? 'inf' : plan.max_min.toFixed(4);
    console.log(`wasm ${shape} ${splits} ${members} ${ms.toFixed(2)} ${plan.moves} ${plan.bound_hit} ${ratio}`);
  }
}
