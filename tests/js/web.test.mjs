// Unit tests of the dashboard's pure modules (web/*/shared/, and the worker's moves slice): no
// browser, no wasm. (Which changes of a scenario apply, and the summary's figures, are the core's:
// crate/core/tests/partial.rs and report/summary.rs.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { humanBytes, thousands, parseBytes, exactBytes, ratio, signedBytes, utc, plural } from '../../web/common/shared/format.js';
import { naturalCompare, sortRows } from '../../web/common/shared/sort.js';
import { scenarioText, parseScenario, describe, emptyScenario } from '../../web/common/shared/scenario.js';
import { toFragment, fromFragment } from '../../web/shell/shared/permalink.js';
import { chartModel, TOP_N, memberRows, describeMember } from '../../web/plan/shared/chart-model.js';
import { ticks } from '../../web/common/shared/ticks.js';
import { movesSlice, cmpDecimal } from '../../web/plan/worker/moves-slice.js';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const MAX = '18446744073709551615';

test('scenario text keeps u64 values exact, as decimal strings', () => {
  const s = { defaultCap: 12, rebalanceDelayMs: '20000', rules: null, changes: [{ op: 'set_weight', split: 'a', weight: MAX }, { op: 'add_splits', count: '3', weight: '9007199254740993', prefix: 'x-' }] };
  const text = scenarioText(s);
  assert.equal(text, `{"format":"spate-planner-scenario/1","default_cap":12,"rebalance_delay_ms":"20000","changes":[{"op":"set_weight","split":"a","weight":"${MAX}"},{"op":"add_splits","count":"3","weight":"9007199254740993","prefix":"x-"}]}`);
  assert.deepEqual(parseScenario(text), s);
});

test('parseScenario reads bare u64 numbers without rounding them', () => {
  const s = parseScenario(`{"changes":[{"op":"set_weight","split":"a","weight": ${MAX}}],"rebalance_delay_ms":9007199254740993}`);
  assert.equal(s.changes[0].weight, MAX);
  assert.equal(s.rebalanceDelayMs, '9007199254740993');
  // a member whose name looks like a field is left alone
  const odd = parseScenario('{"changes":[{"op":"add_member","member":"\\"weight\\":5"}]}');
  assert.equal(odd.changes[0].member, '"weight":5');
});

test('parseScenario refuses what is not a scenario, with a code', () => {
  assert.throws(() => parseScenario('{not json'), (e) => e.code === 'invalid_scenario');
  assert.throws(() => parseScenario('[]'), (e) => e.code === 'invalid_scenario');
  assert.throws(() => parseScenario('{"format":"other/2"}'), (e) => e.code === 'unsupported_format');
  assert.throws(() => parseScenario('{"changes":3}'), (e) => e.code === 'invalid_scenario');
  // a change is the core's to read: one it cannot read is kept as written, and refused there
  assert.deepEqual(parseScenario('{"changes":[3,{"op":"set_cap","member":"w1","cap":"lots"}]}').changes, [3, { op: 'set_cap', member: 'w1', cap: 'lots' }]);
  assert.equal(describe({ op: 'set_cap', member: 'w1', cap: 'lots' }, { code: 'invalid_change' }), '{"op":"set_cap","member":"w1","cap":"lots"}');
  assert.equal(describe(3, { code: 'invalid_change' }), '3');
});

test('scenario text carries every change, one the core does not know included, for the core to judge', () => {
  const s = { defaultCap: 4, rebalanceDelayMs: null, changes: [{ op: 'add_member', member: 'a' }, { op: 'explode' }] };
  assert.equal(scenarioText(s), '{"format":"spate-planner-scenario/1","default_cap":4,"changes":[{"op":"add_member","member":"a"},{"op":"explode"}]}');
  assert.equal(describe({ op: 'explode' }), '{"op":"explode"}');
});

test('describe names every change for people', () => {
  assert.equal(describe({ op: 'remove_member', member: 'w1', departure: 'graceful' }), 'remove w1: stopped gracefully (released what it held)');
  assert.equal(describe({ op: 'remove_member', member: 'w1', within_rebalance_delay: true }), 'remove w1: crashed just now (its splits withheld for the rebalance delay)');
  assert.equal(describe({ op: 'release_departed', member: 'w9' }), 'release the splits withheld for w9 (its delay is over)');
  assert.equal(describe({ op: 'set_weight', split: 's', weight: '6442450944' }), 'weight of s: 6.00 GiB');
  assert.equal(describe({ op: 'add_splits', count: '1500', weight: '67108864' }), 'add 1,500 splits of 64.0 MiB (synthetic-…)');
});

test('parseBytes: units, fractions, exact limits', () => {
  assert.equal(parseBytes('64MiB'), '67108864');
  assert.equal(parseBytes('6 GiB'), '6442450944');
  assert.equal(parseBytes('1.5G'), '1610612736');
  assert.equal(parseBytes('123'), '123');
  assert.equal(parseBytes('15EiB'), '17293822569102704640');
  assert.throws(() => parseBytes('16.0000001EiB'), /more than 2\^64-1/);
  assert.throws(() => parseBytes('12 apples'), (e) => e.code === 'invalid_size');
  assert.throws(() => parseBytes(''), (e) => e.code === 'invalid_size');
});

test('formatting: sizes, separators, exact bytes, ratios, times', () => {
  assert.equal(humanBytes('512'), '512 B');
  assert.equal(humanBytes('1536'), '1.50 KiB');
  assert.equal(humanBytes(String(35n * 1024n ** 3n)), '35.0 GiB');
  assert.equal(humanBytes(String(350n * 1024n ** 3n)), '350 GiB');
  assert.equal(humanBytes(MAX), '16.0 EiB');
  assert.equal(thousands(MAX), '18,446,744,073,709,551,615');
  assert.equal(thousands('-1234'), '-1,234');
  assert.equal(thousands(999), '999');
  assert.equal(exactBytes('1'), '1 byte');
  assert.equal(exactBytes('37580963840'), '37,580,963,840 bytes');
  assert.equal(ratio(1.23456), '1.235');
  assert.equal(ratio(Infinity), '∞');
  assert.equal(plural(1, 'move'), '1 move');
  assert.equal(plural(2048, 'move'), '2,048 moves');
  assert.equal(utc('1764547200000'), '2025-12-01 00:00:00 UTC');
});

test('signedBytes: a load change with its sign, exact beyond 2^53', () => {
  assert.deepEqual([signedBytes('-536870912'), signedBytes('3221225472'), signedBytes('0')], ['−512 MiB', '+3.00 GiB', '±0 B']);
  assert.equal(signedBytes('-18446744073709551615'), '−16.0 EiB');
});

test('natural sort: worker-2 < worker-10 < worker-100, and sort by now, planned, change', () => {
  const names = ['worker-100', 'worker-10', 'worker-2', 'worker-1', 'alpha', 'worker-010'];
  assert.deepEqual(names.slice().sort(naturalCompare), ['alpha', 'worker-1', 'worker-2', 'worker-10', 'worker-010', 'worker-100']);
  const rows = [
    { name: 'w-10', now: 5n, planned: 9n },
    { name: 'w-2', now: 7n, planned: 1n },
    { name: 'w-1', now: 1n, planned: 2n },
  ];
  assert.deepEqual(sortRows(rows, 'name').map((r) => r.name), ['w-1', 'w-2', 'w-10']);
  assert.deepEqual(sortRows(rows, 'now').map((r) => r.name), ['w-2', 'w-10', 'w-1']);
  assert.deepEqual(sortRows(rows, 'planned').map((r) => r.name), ['w-10', 'w-1', 'w-2']);
  assert.deepEqual(sortRows(rows, 'change').map((r) => r.name), ['w-2', 'w-10', 'w-1']);
});

test('permalink: the scenario, the order and the snapshot round-trip; a bad scenario reads as empty with the error', () => {
  const s = { defaultCap: null, rebalanceDelayMs: null, rules: null, changes: [{ op: 'add_member', member: 'w&x=#', cap: 3 }] };
  const frag = toFragment(s, { order: 'planned', snapshot: 'orders@1764547200000' });
  const back = fromFragment(frag);
  assert.deepEqual(back.scenario, s);
  // the rules picked in the what-if panel travel in the link, and a scenario of rules alone is kept
  const ruled = { ...emptyScenario(), rules: '0.3' };
  assert.match(scenarioText(ruled), /"rules":"0\.3"/);
  assert.deepEqual(fromFragment(toFragment(ruled, { order: 'name', snapshot: 'x@1' })).scenario, ruled);
  assert.equal(back.order, 'planned');
  assert.equal(back.snapshot, 'orders@1764547200000');
  assert.equal(toFragment(emptyScenario(), { order: 'name', snapshot: 'x@1' }), '');
  const bad = fromFragment('#scenario=%7Bnope');
  assert.deepEqual(bad.scenario, emptyScenario());
  assert.equal(bad.error.code, 'invalid_scenario');
});

test('axis ticks are round binary sizes covering the largest load', () => {
  const gib = 1024 ** 3;
  const t = ticks(BigInt(35 * gib), 5);
  assert.deepEqual(t.ticks.map((x) => x.label), ['0 B', '10.0 GiB', '20.0 GiB', '30.0 GiB', '40.0 GiB']);
  assert.equal(t.end, 40 * gib);
});

test('the chart folds a big fleet to the top 25, the heaviest now and planned pinned first, keeping the chosen member', () => {
  const members = Array.from({ length: 200 }, (_, i) => member(`w-${i}`, String(i), String(200 - i)));
  const view = planView(members, { heaviest_now: heaviest('w-199'), heaviest_planned: heaviest('w-0') });
  const m = chartModel(view, { order: 'now', keep: ['w-3'] });
  // pinned: the heaviest now (also first by load now) and the heaviest planned (last by it)
  assert.deepEqual(m.rows.slice(0, 2).map((r) => [r.name, r.pinned]), [['w-199', ['heaviest now']], ['w-0', ['heaviest planned']]]);
  assert.equal(m.rows.filter((r) => r.name === 'w-199').length, 1, 'a pinned member is shown once');
  assert.ok(m.rows.some((r) => r.name === 'w-3'));
  assert.equal(m.rows.length, 2 + (TOP_N - 1) + 1);
  assert.equal(m.folded, 200 - m.rows.length);
  // by name, the heaviest are still first; unfolded, every member once
  assert.deepEqual(chartModel(view, { order: 'name' }).rows.slice(0, 3).map((r) => r.name), ['w-199', 'w-0', 'w-1']);
  assert.equal(chartModel(view, { all: true }).rows.length, 200);
  // the marks are the core's, member by member
  assert.equal(memberRows(view)[5].marks.name, 'w-5');
});

test("each chart row holds the core's count of its splits at risk, read by name only", () => {
  // `constructor` and `__proto__` name no member of by_member: they hold none, not Object's
  const names = ['w-1', 'w-2', 'constructor', '__proto__'];
  const view = planView(names.map((n) => ({ ...member(n, '10', '10'), load_change: '0' })), {}, { 'w-2': 3 });
  assert.deepEqual(memberRows(view).map((r) => r.atRisk), [0, 3, 0, 0]);
  const [quiet, risky] = memberRows(view);
  assert.equal(describeMember(risky, 5).lines.at(-1), 'holds 3 splits at risk of quarantine (one non-graceful end away)');
  assert.match(describeMember(risky, 5).short, /; holds 3 splits at risk of quarantine/);
  assert.ok(!describeMember(quiet, 5).lines.some((l) => l.includes('at risk')));
});

test('moves slices: exact u128 order, filter by member', () => {
  assert.equal(cmpDecimal('99999999999999999999', '100000000000000000000'), -1);
  const moves = [
    { split: 's-10', weight: '5', from: 'a', to: 'b', reason: 'improve', gain: '100000000000000000000', relief: '10000000000000000000' },
    { split: 's-2', weight: '7', from: 'b', to: 'c', reason: 'improve', gain: '99999999999999999999', relief: '9999999999999999999' },
    { split: 's-1', weight: '7', from: null, to: 'a', reason: 'unowned', gain: null, relief: null },
  ];
  assert.deepEqual(movesSlice(moves, { sort: 'relief', desc: true }).rows.map((m) => m.split), ['s-10', 's-2', 's-1']);
  // a reason is found by its code or by the core's words for it
  const reasons = [{ reason: 'unowned', words: 'unowned: fill', help: '' }, { reason: 'improve', words: 'improving move', help: '' }];
  assert.equal(movesSlice(moves, { filter: 'improving', reasons }).total, 2);
  assert.equal(movesSlice(moves, { filter: 'fill', reasons }).total, 1);
  assert.deepEqual(movesSlice(moves, { sort: 'split', desc: false }).rows.map((m) => m.split), ['s-1', 's-2', 's-10']);
  assert.deepEqual(movesSlice(moves, { sort: 'split', desc: false, member: 'a' }).rows.map((m) => m.split), ['s-1', 's-10']);
  assert.equal(movesSlice(moves, { filter: 'unowned' }).total, 1);
});

function member(name, now, planned, lanes = 1, lanesNow = 1) {
  return { name, cap: 4, default_cap: false, lanes, lanes_now: lanesNow, load_now: now, load_planned: planned, gained: 0, lost: 0 };
}

function heaviest(name) {
  return { name, load_now: '0', load_planned: '0', now_over_mean: '1.000', planned_over_mean: '1.000' };
}

function planView(members, summary = {}, byMember = {}) {
  const marks = members.map((m) => ({ name: m.name, over_now: false, over_planned: false, at_cap_now: false, at_cap_planned: false, now_over_mean: '1.000', planned_over_mean: '1.000' }));
  const side = { measured_against: 'mean_now', total: '0', mean_load: 0, max_load: '0', max_over_mean: '0.000', over_mean: 0, at_cap: 0 };
  return {
    summary: { members: members.length, over_mean_percent: 5, now: side, planned: { ...side, measured_against: 'mean_planned' }, heaviest_now: null, heaviest_planned: null, marks, moves: 0, weight_moved: '0', ...summary },
    default_cap: 4, default_cap_source: 'user', default_cap_note: 'set', leader_publishes: true, published: null, findings: [],
    at_risk: { max_attempts: 4, max_attempts_source: 'spate_default', max_attempts_note: "4, Spate's default", count: Object.values(byMember).reduce((a, b) => a + b, 0), weight: '0', by_member: byMember, unheld: 0, past_cap_count: 0, race_parked_count: 0, headline: '', past_cap_note: null, race_parked_note: null },
    report: {
      members, moves: [], queue: [],
      counts: { splits: 0, assigned: 0, queued: 0, reserved: 0, completed: 0, quarantined: 0, waiting_for_spec: 0 },
      balance: { total: '0', max_load: '0', min_load: '0', mean_load: 0, lower_bound: '0', max_over_bound: 1, max_over_mean: 1 },
      churn: { moves: 0, weight_moved: '0', from_live_members: 0 }, improving_moves: 0, bound_hit: false, improvable: false,
    },
  };
}


/** The files under `dir` (relative to the repository) whose names end in one of `ends`. */
function filesUnder(dir, ends) {
  const root = new URL('../../', import.meta.url).pathname;
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && ends.some((x) => e.name.endsWith(x)))
    .map((e) => join(e.parentPath, e.name));
}

test('a graceful stop has one name on the page, the command line and in the core\'s words: "stopped gracefully"', () => {
  const files = [...filesUnder('web', ['.js']).filter((f) => !/\/(dist|dist-test|pkg|pkg-test|vendor)\//.test(f)),
    ...filesUnder('crate', ['.rs']).filter((f) => /\/src\//.test(f)), ...filesUnder('docs', ['.md'])];
  assert.ok(files.length > 100, `${files.length} files`);
  const other = files.flatMap((f) => readFileSync(f, 'utf8').split('\n').map((l, i) => [f, i + 1, l]))
    .filter(([, , l]) => /\b(shut|shuts|shutting) down gracefully\b/i.test(l)).map(([f, n, l]) => `${f}:${n}: ${l.trim()}`);
  assert.deepEqual(other, []);
  // the list of changes names it as the what-if form (and the Departed list, and the core's findings) do
  assert.match(describe({ op: 'remove_member', member: 'w1', departure: 'graceful' }), /: stopped gracefully /);
});
