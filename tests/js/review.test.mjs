// Unit tests of the review's pure modules (web/review/shared/sweep-model.js and
// compare-model.js), and the declarations of SweepStep[] and Diff (crate/wasm/types.d.ts)
// against what the module returns, checked by tsc as tests/ts does for the other results.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, writeFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { checkSweep, checkTargets, countScale, ratioScale, valueScale, stepCells, crashCells } from '../../web/review/shared/sweep-model.js';
import { upgradeRows, sideTitle, todayText } from '../../web/review/shared/upgrade-model.js';
import { sideBySide, decisionVerdict, memberLoads, maxLoad, capText, names } from '../../web/review/shared/compare-model.js';
import { signedBytes } from '../../web/common/shared/format.js';
import { loadPlanner } from '../wasm.mjs';

const root = new URL('../../', import.meta.url).pathname;

function step(value, ratio, queued, extra = {}) {
  return { value, members: 10 + value, max_load: '1000', mean_load: 900, max_over_mean: ratio, max_over_bound: ratio, queued, moves: 5, bytes_moved: '2048', at_cap: 0, bound_hit: false, ...extra };
}

test('checkSweep reads the form, and refuses what the core would not plan, with a code', () => {
  assert.deepEqual(checkSweep({ axis: 'add_members', from: '0', to: ' 8 ', cap: '' }), { axis: 'add_members', from: 0, to: 8, cap: 0, crash: false });
  assert.deepEqual(checkSweep({ axis: 'add_members', from: '1', to: '3', cap: '16' }), { axis: 'add_members', from: 1, to: 3, cap: 16, crash: false });
  // the cap of added members only counts when members are added
  assert.deepEqual(checkSweep({ axis: 'default_cap', from: '2', to: '32', cap: '16' }), { axis: 'default_cap', from: 2, to: 32, cap: 0, crash: false });
  assert.equal(checkSweep({ axis: 'member_cap', from: '2', to: '4', crash: true }).crash, true);
  const refused = (req, re) => assert.throws(() => checkSweep(req), (e) => e.code === 'invalid_sweep' && re.test(e.message));
  refused({ axis: 'add_members', from: '5', to: '4', cap: '' }, /To \(4\) is below From \(5\)/);
  refused({ axis: 'member_cap', from: '-1', to: '4' }, /From is a whole number/);
  refused({ axis: 'member_cap', from: '1.5', to: '4' }, /From is a whole number/);
  refused({ axis: 'add_members', from: '0', to: '3', cap: '0' }, /cap of added members is 1 or more/);
  refused({ axis: 'workers', from: '0', to: '3' }, /workers is not a sweep axis/);
});

test("targets: the core's smallest value meeting both and its verdict, as spate-planner sweep --max-over-mean names them", async () => {
  const t = checkTargets({ maxOverMean: '1.05', maxQueued: '0' });
  assert.deepEqual(t, { maxOverMean: 1.05, maxQueued: 0 });
  assert.throws(() => checkTargets({ maxOverMean: '0.9', maxQueued: '0' }), /ratio of 1 or more/);
  assert.throws(() => checkTargets({ maxOverMean: '', maxQueued: '0' }), /ratio of 1 or more/);
  const { Planner } = await loadPlanner();
  const verdict = (steps, r, q) => Planner.sweepVerdict(steps, 'default_cap', 0, r, q);
  const steps = [step(2, '1.2000', 0), step(3, '1.0400', 3), step(4, '1.0500', 0), step(5, '1.0100', 0)];
  const v = verdict(steps, 1.05, 0);
  // exactly on the target meets it; balanced but queued does not
  assert.deepEqual(v.meets, [false, false, true, true]);
  assert.equal(v.smallest, 4);
  assert.equal(v.text, 'Smallest default cap meeting the targets (max/mean at most 1.05 and at most 0 queued): 4 — 14 members, max/mean 1.0500, 0 queued, 5 moves.');
  assert.equal(verdict(steps, 1.001, 0).text, 'No value of default cap from 2 to 5 meets the targets (max/mean at most 1.001 and at most 0 queued).');
  assert.throws(() => Planner.sweepVerdict(steps, 'workers', 0, 1, 0), (e) => e.code === 'invalid_sweep');
  assert.equal(verdict(steps, 1.05, 3).smallest, 3);
  assert.equal(verdict(steps, 1.001, 0).smallest, null);
  // by value, not by position
  assert.equal(verdict([step(9, '1.0', 0), step(7, '1.0', 0)], 1.05, 0).smallest, 7);
  // the steps the module itself returned read back, crash figures and all
  const a = Planner.demo(300, 6, 1);
  const real = a.sweep('', 'add_members', 0, 1, 0, '{"format":"spate-planner-script/1"}');
  assert.equal(verdict(real, 1e9, 1e9).smallest, 0);
  assert.throws(() => verdict([{ value: 1 }], 1, 0), (e) => e.code === 'invalid_steps');
  // the most steps a sweep takes is the core's bound
  assert.equal(Planner.maxSweepSteps(), 1024);
});

test("today's fleet: the core marks its step, and says which value it is on each axis", async () => {
  const { Planner } = await loadPlanner();
  const a = Planner.demo(300, 6, 1);
  assert.deepEqual(a.sweep('', 'add_members', 0, 2, 0, '').map((s) => s.today), [true, false, false]);
  assert.deepEqual(a.sweepToday('', 'add_members', 0), { value: 0, note: 'no member added' });
  assert.deepEqual(a.sweepToday('{"default_cap":12}', 'default_cap', 0), { value: 12, note: 'the default cap now (12)' });
  assert.deepEqual(a.sweep('{"default_cap":12}', 'default_cap', 11, 13, 0, '').map((s) => s.today), [false, true, false]);
  const names = a.info().members.map((m) => m.name);
  const caps = (cs) => JSON.stringify({ changes: names.map((member, i) => ({ op: 'set_cap', member, cap: cs[i % cs.length] })) });
  assert.equal(a.sweepToday(caps([6]), 'member_cap', 0).value, 6);
  const mixed = a.sweepToday(caps([96, 16, 256]), 'member_cap', 0);
  assert.equal(mixed.value, null);
  assert.match(mixed.note, /caps differ now \(16–256\)/);
  assert.ok(a.sweep(caps([96, 16, 256]), 'member_cap', 15, 17, 0, '').every((s) => !s.today), 'no step is today\'s fleet');
});

test('scales: the splits axis turns logarithmic when its values span orders of magnitude', () => {
  const lin = countScale([0, 250, 300, 0]);
  assert.equal(lin.log, false);
  assert.deepEqual(lin.ticks.map((t) => t.label), ['0', '100', '200', '300']);
  const log = countScale([9800, 4000, 30, 0]);
  assert.equal(log.log, true);
  assert.deepEqual(log.ticks.map((t) => t.label), ['0', '1', '10', '100', '1k', '10k']);
  assert.equal(log.at(0), 0);
  assert.equal(log.at(10000), 1);
  assert.ok(log.at(30) > 0.3 && log.at(30) < 0.45, 'thirty sits in the second decade');
  assert.equal(countScale([0, 0]).log, false);
  const r = ratioScale([1.0014, 1.0812], 1.05);
  assert.deepEqual(r.ticks.map((t) => t.label), ['1.000', '1.025', '1.050', '1.075', '1.100']);
  assert.equal(r.at(1), 0);
  assert.equal(r.at(1.1).toFixed(6), '1.000000');
  assert.deepEqual(ratioScale([1, 1.5], 1.05).ticks.map((t) => t.label), ['1.00', '1.20', '1.40', '1.60']);
  assert.deepEqual(valueScale(2, 33, 8).ticks.map((t) => t.label), ['5', '10', '15', '20', '25', '30']);
  assert.equal(valueScale(4, 4, 5).at(4), 0.5);
  assert.deepEqual(stepCells(step(3, '1.0400', 1200)), ['3', '13', '1000 B', '1.0400', '1.0400', '1,200', '5', '2.00 KiB', '0']);
  // the crash cells are the core's seconds, as they are
  const crash = { member: 'w-1', recovery_ms: '12345', idle_split_ms: '2500', idle_weighted: '1', recovery_s: '12.3', idle_split_s: '3' };
  assert.deepEqual(crashCells(step(3, '1.0', 0, { crash })), ['w-1', '12.3 s', '3']);
  assert.deepEqual(crashCells(step(3, '1.0', 0, { crash: { ...crash, recovery_ms: null, recovery_s: null } })), ['w-1', 'never', '3']);
  assert.deepEqual(crashCells(step(3, '1.0', 0)), ['—', '—', '—']);
});

const DIFF = {
  before: { job: 'orders', taken_at_ms: '1767225600000', plan_generation: '3', members: 3, splits: 10, rules: { rules: '0.1', source: 'no_elector' } },
  after: { job: 'orders', taken_at_ms: '1767229200000', plan_generation: null, members: 3, splits: 10, rules: { rules: '0.3', source: 'user' } },
  joined: ['w-new'], left: ['w-2'],
  members: [
    { name: 'w-1', load_before: '1073741824', load_after: '536870912', cap_before: 4, cap_after: 6, load_change: '-536870912' },
    { name: 'w-2', load_before: '2147483648', load_after: null, cap_before: 4, cap_after: null, load_change: '-2147483648' },
    { name: 'w-new', load_before: null, load_after: '3221225472', cap_before: null, cap_after: 4, load_change: '3221225472' },
    { name: 'w-3', load_before: '10', load_after: '10', cap_before: 2, cap_after: 2, load_change: '0' },
  ],
  cap_changes: [{ name: 'w-1', before: 4, after: 6 }],
  owner_changed: 1,
  owner_changes: [{ split: 's1', before: 'w-2', after: 'w-new' }],
  figures_before: { max_load_now: '2147483648', max_load_planned: '1610612736', max_over_mean_planned: '1.0000', queued: 0, moves: 2, bytes_moved: '1024', completed: 1, quarantined: 0 },
  figures_after: { max_load_now: '3221225472', max_load_planned: '3221225472', max_over_mean_planned: '1.5000', queued: 4, moves: 0, bytes_moved: '0', completed: 2, quarantined: 1 },
  decision: { published: true, matches: false, differing: 2, differences: { s1: ['w-1', 'w-new'], s4: [null, 'w-3'] }, verdict: 'The later published assignment differs from what the planner decided from the earlier snapshot for 2 splits.' },
  chronology: 'forward', chronology_warning: null,
};

test('compare model: the two sides, the decision, caps and loads', () => {
  const rows = Object.fromEntries(sideBySide(DIFF).map(([k, ...v]) => [k, v]));
  assert.deepEqual(rows['taken at'], ['2026-01-01 00:00:00 UTC', '2026-01-01 01:00:00 UTC']);
  assert.deepEqual(rows['plan generation'], ['3', 'none']);
  assert.deepEqual(rows.rules, ['Spate 0.1', 'Spate 0.3 (picked)']);
  assert.deepEqual(rows['max load now'], ['2.00 GiB', '3.00 GiB', '2,147,483,648 bytes', '3,221,225,472 bytes']);
  assert.deepEqual(rows['max / mean planned'], ['1.0000', '1.5000']);
  // the core's verdict and count, as they are
  assert.deepEqual(decisionVerdict(DIFF), { level: 'differs', count: 2, text: DIFF.decision.verdict });
  assert.equal(decisionVerdict({ ...DIFF, decision: { published: true, matches: true, differing: 0, differences: {}, verdict: 'v' } }).level, 'ok');
  assert.equal(decisionVerdict({ ...DIFF, decision: { published: false, matches: false, differing: 0, differences: {}, verdict: 'v' } }).level, 'none');
  const loads = memberLoads(DIFF);
  assert.deepEqual(loads.map((r) => r.name), ['w-1', 'w-2', 'w-new', 'w-3']); // the core's order, kept
  assert.equal(loads[1].after, null);
  assert.equal(loads[1].change, -2147483648n);
  assert.equal(loads[2].change, 3221225472n);
  assert.equal(maxLoad(loads), 3221225472n);
  assert.deepEqual(loads.map(capText), ['4 → 6', '4 → —', '— → 4', '2']);
  assert.deepEqual([signedBytes(-536870912n), signedBytes(3221225472n), signedBytes(0n)], ['−512 MiB', '+3.00 GiB', '±0 B']);
  assert.equal(names([]), 'none');
  assert.equal(names(['a', 'b']), 'a, b');
});

test('SweepStep[] and Diff as declared are what the module returns (tsc)', async () => {
  const wasm = await loadPlanner();
  const a = wasm.Planner.demo(300, 6, 1);
  const b = wasm.Planner.demo(300, 7, 2);
  const values = {
    steps: ['SweepStep[]', a.sweep('', 'add_members', 0, 2, 4, '')],
    capSteps: ['SweepStep[]', a.sweep('{"changes":[{"op":"add_member","member":"x"}]}', 'member_cap', 2, 3, 0, '')],
    crashSteps: ['SweepStep[]', a.sweep('', 'add_members', 0, 1, 0, '{"format":"spate-planner-script/1"}')],
    diff: ['Diff', b.compare(a, '')],
    same: ['Diff', a.compare(a, '{"rules":"0.3"}')],
  };
  const body = Object.entries(values).map(([k, [type, v]]) => `export const ${k}: ${type} = ${JSON.stringify(v, null, 1)};`).join('\n');
  await mkdir(join(root, 'tests/ts/generated'), { recursive: true });
  const dir = await mkdtemp(join(root, 'tests/ts/generated/review-'));
  try {
    await writeFile(join(dir, 'checked.ts'), `import type { SweepStep, Diff } from '../../../../web/pkg-test/spate_planner.js';\n${body}\n`);
    await writeFile(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'ES2022', moduleResolution: 'bundler', lib: ['ESNext', 'DOM'] }, files: ['checked.ts'] }));
    const tsc = (project) => spawnSync(join(root, 'node_modules/.bin/tsc'), ['-p', project], { encoding: 'utf8' });
    const ok = tsc(join(dir, 'tsconfig.json'));
    assert.equal(ok.status, 0, ok.stdout);
    // and a field the declarations do not have fails
    await writeFile(join(dir, 'checked.ts'), `import type { SweepStep, Diff } from '../../../../web/pkg-test/spate_planner.js';\n${body.replace('"owner_changes"', '"owners_changed"')}\n`);
    const renamed = tsc(join(dir, 'tsconfig.json'));
    assert.equal(renamed.status, 2);
    assert.match(renamed.stdout, /'"owners_changed"' does not exist in type 'Diff'/);
    // the crash figures are declared too
    assert.ok(values.crashSteps[1].every((s) => s.crash?.member), 'each crash step names its member');
    await writeFile(join(dir, 'checked.ts'), `import type { SweepStep, Diff } from '../../../../web/pkg-test/spate_planner.js';\n${body.replace('"idle_split_ms"', '"idle_ms"')}\n`);
    const crashRenamed = tsc(join(dir, 'tsconfig.json'));
    assert.equal(crashRenamed.status, 2);
    assert.match(crashRenamed.stdout, /'"idle_ms"' does not exist in type 'CrashFigures'/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("crashCells: the member crashed, its recovery in seconds or never, idle split-seconds: the core's seconds", async () => {
  const { Planner } = await loadPlanner();
  const [step] = Planner.demo(300, 6, 1).sweep('', 'add_members', 0, 0, 0, '{"format":"spate-planner-script/1"}');
  const c = step.crash;
  assert.deepEqual(crashCells(step), [c.member, c.recovery_s === null ? 'never' : `${c.recovery_s} s`, Number(c.idle_split_s).toLocaleString('en')]);
  assert.deepEqual(crashCells({}), ['—', '—', '—']);
});

test('upgrade model: each figure of both sides is the document\'s, as text and as its own value', () => {
  const side = (rules, moved, reassigned) => ({
    rules, churn: { moves: 3, weight_moved: moved }, reassigned, weight_reassigned: '18446744073709551615', queued: 1200,
    max_load: '1073741824', max_over_mean: '1.0400', improving_moves: 0, bound_hit: rules === '0.3', loads: {},
  });
  const d = {
    today: { rules: '0.1', source: 'no_elector' }, today_note: 'Spate 0.1 (the plan record has no elector)',
    v0_1: side('0.1', '2048', 9), v0_3: side('0.3', '0', 0), kept_only_by_0_3: [], kept_only_by_0_1: [], placed_apart: [],
  };
  const rows = Object.fromEntries(upgradeRows(d).map((r) => [r.key, r.cells]));
  assert.deepEqual(rows.weight_moved, [
    { value: '2048', text: '2.00 KiB', exact: '2,048 bytes' },
    { value: '0', text: '0 B', exact: '0 bytes' },
  ]);
  assert.deepEqual(rows.reassigned.map((c) => [c.value, c.text]), [['9', '9'], ['0', '0']]);
  assert.deepEqual(rows.weight_reassigned[0].value, '18446744073709551615', 'a u64 stays exact');
  assert.deepEqual(rows.queued.map((c) => c.text), ['1,200', '1,200']);
  assert.deepEqual(rows.max_over_mean.map((c) => c.text), ['1.0400', '1.0400']);
  assert.deepEqual(rows.bound_hit.map((c) => [c.value, c.text]), [['false', 'no'], ['true', 'yes']]);
  assert.deepEqual(['v0_1', 'v0_3'].map((k) => sideTitle(d, k)), ['Spate 0.1 / 0.2 (today)', 'Spate 0.3']);
  assert.equal(todayText(d), 'Today: Spate 0.1 (the plan record has no elector).');
});
