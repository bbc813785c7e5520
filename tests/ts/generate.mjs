#!/usr/bin/env node
// Checks the TypeScript declarations (crate/wasm/types.d.ts, in the generated package) against
// what the module really returns: calls every API of the test build on the demo fleet and a
// few scenarios, and writes the results as typed object literals into
// tests/ts/generated/checked.ts (`export const plan1: PlanView = {...}`). `tsc --noEmit` then
// fails on any field the declarations lack (excess property), any they promise that is absent
// (missing property), and any value of another type: a renamed field fails the build.
//   node tests/ts/generate.mjs && node_modules/.bin/tsc -p tests/ts/tsconfig.json
import { mkdir, writeFile, readFile } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPlanner } from '../wasm.mjs';
import { binary } from '../binary.mjs';

const root = new URL('../../', import.meta.url).pathname;
const wasm = await loadPlanner();
const out = [];
const typed = (name, type, value) => out.push(`export const ${name}: ${type} = ${JSON.stringify(value, null, 1)};`);

function snapshotText(args, edit = (d) => d) {
  const file = join(tmpdir(), `spate-ts-${process.pid}-${out.length}.json`);
  const r = spawnSync(binary(), ['demo', ...args, '-o', file], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`spate-planner demo failed: ${r.stderr}`);
  return readFile(file, 'utf8').then((t) => JSON.stringify(edit(JSON.parse(t))));
}

const demo = wasm.Planner.demo(300, 6, 1);
const scenarios = {
  baseline: '',
  whatif: JSON.stringify({
    format: 'spate-planner-scenario/1', default_cap: 12, rebalance_delay_ms: '20000',
    changes: [
      { op: 'add_member', member: 'w-new', cap: 4 },
      { op: 'remove_member', member: 'worker-01', departure: 'graceful' },
      { op: 'remove_member', member: 'worker-02', within_rebalance_delay: true },
      { op: 'release_departed', member: 'worker-gone-7f3a' },
      { op: 'set_cap', member: 'worker-03', cap: 2 },
      { op: 'set_default_cap', cap: 10 },
      { op: 'reserve', splits: ['part-000001'] },
      { op: 'release', splits: ['part-000001'] },
      { op: 'set_weight', split: 'part-000002', weight: '18446744073709551615' },
      { op: 'add_splits', count: '20', weight: 67108864, prefix: 'syn-', owner: 'w-new' },
    ],
  }),
  nodelay: '{"rebalance_delay_ms":0}',
  // changes that do not apply: an unknown op and a member that is not there (left out, listed)
  refused: '{"changes":[{"op":"explode"},{"op":"set_cap","member":"nobody","cap":1},{"op":"set_cap","member":"worker-01","cap":"x"},{"op":"add_member","member":"w-x"}]}',
};
typed('info_demo', 'FleetInfo', demo.info());
for (const [name, text] of Object.entries(scenarios)) {
  typed(`plan_${name}`, 'PlanView', demo.plan(text));
  typed(`document_${name}`, 'PlanView', JSON.parse(demo.planJson(text)));
  typed(`claims_${name}`, 'ClaimsDocument', demo.claims(text, null, false, 4));
  typed(`claims_one_${name}`, 'ClaimsDocument', demo.claims(text, 'worker-00', true, 2));
  typed(`splits_${name}`, 'SplitLine[]', demo.findSplits(text, 'part-00000', 20));
  typed(`rounds_${name}`, 'Convergence', demo.converge(text, 10));
  typed(`rules_diff_${name}`, 'RulesDiff', demo.diffRules(text));
}
typed('splits_owner', 'SplitLine[]', demo.findSplits('', 'worker-gone-7f3a', 5));
typed('analysed_whatif', 'Analysed', demo.analyse(scenarios.refused));
typed('analysed_baseline', 'Analysed', demo.analyse(''));
typed('sim_defaults', 'SimDefaults', demo.simDefaults());
const steps = demo.sweep(scenarios.refused, 'add_members', 0, 2, 0, '');
typed('sweep_steps', 'SweepStep[]', steps);
typed('sweep_verdict', 'SweepVerdict', wasm.Planner.sweepVerdict(steps, 'add_members', 0, 1.2, 0));
typed('review_files', 'ReviewFiles', demo.reviewReport(scenarios.refused, { axis: 'add_members', from: 0, to: 1, crash: '', max_over_mean: 1.2 }, false, null));
typed('sweep_today', 'SweepToday', demo.sweepToday(scenarios.whatif, 'default_cap', 0));
typed('sweep_today_none', 'SweepToday', demo.sweepToday(scenarios.whatif, 'member_cap', 0));
typed('freshness', 'Freshness', demo.freshness(1767225600000));
// a live job whose busiest member's presence lapses: a crash incident (window, receivers, risk,
// the simulator's prediction), and a join
{
  const text = await snapshotText(['--splits', '60', '--members', '4', '--job', 'live']);
  const live = wasm.Planner.fromLive(text, 1767225600000);
  const presence = JSON.parse(text).lease.entries.find((e) => e.key.startsWith('worker.'));
  live.applyChange(JSON.stringify({ bucket: 'lease', op: 'expire', key: presence.key, revision: presence.revision }));
  typed('live_frame', 'LiveFrame', live.nextFrame(1767225601000));
  typed('incidents', 'IncidentView[]', live.incidents('', undefined, 1767225602000));
  typed('incidents_set', 'IncidentView[]', live.incidents('', 3, 1767225700000));
}
// a fleet with no plan record: the leader publishes nothing
const noPlan = wasm.Planner.fromText(await snapshotText(['--splits', '40', '--members', '3', '--job', 'noplan'],
  (d) => ({ ...d, state: { ...d.state, entries: d.state.entries.filter((e) => e.key !== 'plan') } })));
typed('info_noplan', 'FleetInfo', noPlan.info());
typed('plan_noplan', 'PlanView', noPlan.plan(''));
typed('cases', 'CaseResult[]', wasm.runConformance(await readFile(join(root, 'tests/vectors.json'), 'utf8')).slice(0, 3));
// the timing simulator's document: crashes (one ignored), stops, restarts, cap changes, a leader
// crash, landed and failed splits, drawn drains with commits, declines and completions
const sim = wasm.Planner.demo(60, 4, 2);
const simScripts = [
  { seed: 3, until_ms: 400000, config: { max_attempts: 2 }, data_plane: { drain_ms: { min: 500, max: 15000 }, commit_interval_ms: 4000, planner_ms: 1500 },
    events: [{ at_ms: 0, op: 'crash', member: 'worker-01' }, { at_ms: 1000, op: 'crash', member: 'worker-01' }, { at_ms: 20000, op: 'stop', member: 'worker-02' },
      { at_ms: 30000, op: 'start', member: 'worker-02', cap: 4 }, { at_ms: 40000, op: 'set_cap', member: 'worker-03', cap: 2 }, { at_ms: 50000, op: 'crash_leader' },
      { at_ms: 60000, op: 'add_splits', count: 5, weight: 1000, prefix: 'syn-' }, { at_ms: 80000, op: 'start', member: 'fresh' }] },
  { seed: 4, until_ms: 600000, data_plane: { decline: true, run_ms: { min: 1000, max: 20000 } },
    events: [{ at_ms: 5000, op: 'start', member: 'n1' }, { at_ms: 9000, op: 'stop', member: 'worker-00' }, { at_ms: 10000, op: 'fail', split: 'part-000000' }] },
  // by Spate 0.3's timing and decisions
  { rules: '0.3', seed: 5, until_ms: 200000,
    events: [{ at_ms: 0, op: 'crash_leader' }, { at_ms: 40000, op: 'stop', member: 'worker-02' }, { at_ms: 50000, op: 'start', member: 'worker-02' }] },
];
simScripts.forEach((s, i) => typed(`simulation_${i}`, 'SimulationDocument', JSON.parse(sim.simulate(JSON.stringify(s)))));
// the Timeline's figures of A and B, and the fleet at instants of a kept run
const figA = JSON.parse(sim.simulate(JSON.stringify(simScripts[0]))).figures;
const figB = JSON.parse(sim.simulate(JSON.stringify(simScripts[1]))).figures;
wasm.figuresTable(figA, figB, true).forEach((r, i) => typed(`figure_row_${i}`, 'FigureRow', r));
wasm.figuresTable(figA, null, false).slice(0, 1).forEach((r) => typed('figure_row_alone', 'FigureRow', r));
const kept = sim.simulateRun(JSON.stringify(simScripts[0]));
[0, 9000, 200000].forEach((t) => typed(`fleet_at_${t}`, 'FleetAt', kept.fleetAt(t)));
typed('summary', 'SimSummary', kept.summary());
// the chart's series: every field as returned (typed arrays written as typed arrays of their first values)
const literal = (v) => {
  if (v instanceof Float64Array) return `new Float64Array(${JSON.stringify([...v.subarray(0, 4)])})`;
  if (Array.isArray(v)) return `[${v.map(literal).join(', ')}]`;
  if (v && typeof v === 'object') return `{ ${Object.entries(v).map(([k, x]) => `${k}: ${literal(x)}`).join(', ')} }`;
  return JSON.stringify(v);
};
out.push(`export const series: SimSeries = ${literal(kept.series())};`);
kept.free();
const bench = new wasm.BenchFleet('scale-out', 200, 8);
typed('bench', 'BenchSummary', bench.plan());

const header = `// Generated by tests/ts/generate.mjs from what the wasm module returned: do not edit.
import type { FleetInfo, PlanView, Analysed, ClaimsDocument, SplitLine, Convergence, CaseResult, BenchSummary, SimulationDocument, SimDefaults, FigureRow, FleetAt, SimSeries, SimSummary, SweepStep, SweepVerdict, ReviewFiles, SweepToday, Freshness, RulesDiff, LiveFrame, IncidentView } from '../../../web/pkg-test/spate_planner.js';
`;
await mkdir(new URL('generated/', import.meta.url), { recursive: true });
await writeFile(new URL('generated/checked.ts', import.meta.url), `${header}\n${out.join('\n')}\n`);
console.log(`tests/ts/generated/checked.ts: ${out.length} values`);
