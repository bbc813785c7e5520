// Unit tests of the dashboard's pure modules (web/*/shared/, and the worker's analyse and moves
// slice): no browser, no wasm.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { humanBytes, thousands, parseBytes, exactBytes, ratio, gainRelief, utc, plural } from '../../web/common/shared/format.js';
import { naturalCompare, sortRows } from '../../web/common/shared/sort.js';
import { scenarioText, parseScenario, baselineText, describe, changeIndexOf, emptyScenario } from '../../web/common/shared/scenario.js';
import { toFragment, fromFragment } from '../../web/shell/shared/permalink.js';
import { code, cell, text, markdownReport } from '../../web/plan/shared/report.js';
import MarkdownIt from 'markdown-it';
import { chartModel, TOP_N } from '../../web/plan/shared/chart-model.js';
import { ticks } from '../../web/common/shared/ticks.js';
import { analyseScenario } from '../../web/whatif/worker/analyse.js';
import { movesSlice, cmpDecimal } from '../../web/plan/worker/moves-slice.js';
import { summarize } from '../../web/common/shared/summary.js';

const MAX = '18446744073709551615';

test('scenario text keeps u64 values exact, as decimal strings', () => {
  const s = { defaultCap: 12, rebalanceDelayMs: '20000', changes: [{ op: 'set_weight', split: 'a', weight: MAX }, { op: 'add_splits', count: '3', weight: '9007199254740993', prefix: 'x-' }] };
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
  assert.throws(() => parseScenario('{"changes":[3]}'), (e) => e.code === 'invalid_scenario');
});

test('scenario text can leave out refused changes; the baseline keeps only the settings', () => {
  const s = { defaultCap: 4, rebalanceDelayMs: null, changes: [{ op: 'add_member', member: 'a' }, { op: 'add_member', member: 'b' }] };
  assert.equal(JSON.parse(scenarioText(s, new Set([0]))).changes[0].member, 'b');
  assert.equal(baselineText(s), '{"format":"spate-planner-scenario/1","default_cap":4,"changes":[]}');
  assert.equal(changeIndexOf({ path: 'changes[12].member' }), 12);
  assert.equal(changeIndexOf({ path: 'format' }), -1);
});

test('describe names every change for people', () => {
  assert.equal(describe({ op: 'remove_member', member: 'w1', departure: 'graceful' }), 'remove w1: shut down gracefully (released what it held)');
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

test('gainRelief: what an improving move takes off the heavier member', () => {
  // D = 10, w = 3: gain 3·7 = 21; the pair's max falls by min(3, 7) = 3
  assert.equal(gainRelief('21', '3'), 3n);
  // D = 10, w = 8: gain 8·2 = 16; falls by 2
  assert.equal(gainRelief('16', '8'), 2n);
  // a 20-digit gain stays exact
  const w = 6442450944n;
  const d = 3n * w + 12345n;
  assert.equal(gainRelief(String(w * (d - w)), String(w)), w);
  assert.equal(gainRelief(null, '5'), null);
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

test('Markdown: a | in a name cannot end a table cell; backticks cannot end a code span', () => {
  assert.equal(cell('a|b'), '` a\\|b `');
  assert.equal(code('x`y'), '`` x`y ``');
  assert.equal(code('line\nbreak'), '` line break `');
  const view = planView([member('evil|name', '10', '10')]);
  const md = markdownReport({
    info: { job: 'j|ob', taken_at_ms: '0', seed: '1' }, source: { label: 'x.json' },
    result: { view, baseline: null, failures: [{ index: 0, code: 'unknown_member', message: 'no', path: 'changes[0].member' }] },
    scenario: { defaultCap: null, rebalanceDelayMs: null, changes: [{ op: 'set_cap', member: 'ghost', cap: 1 }] },
    moves: { total: 0, rows: [] }, link: null,
  });
  const row = md.split('\n').find((l) => l.startsWith('|') && l.includes('evil'));
  assert.equal(row, '| ` evil\\|name ` | 10 B | 10 B | 1/4 | 0 | 0 |');
  assert.match(md, /- ` cap of ghost: 1 ` — \*\*not applied\*\*: ` no `/);
});

test('permalink: the scenario, the order and the snapshot round-trip; a bad scenario reads as empty with the error', () => {
  const s = { defaultCap: null, rebalanceDelayMs: null, changes: [{ op: 'add_member', member: 'w&x=#', cap: 3 }] };
  const frag = toFragment(s, { order: 'planned', snapshot: 'orders@1764547200000' });
  const back = fromFragment(frag);
  assert.deepEqual(back.scenario, s);
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

test('the chart folds a big fleet to the top 25, keeping the chosen member', () => {
  const rows = Array.from({ length: 200 }, (_, i) => ({ name: `w-${i}`, now: BigInt(i), planned: BigInt(200 - i), cap: 4, lanes: 1, defaultCap: false, gained: 0, lost: 0 }));
  const m = chartModel(rows, { order: 'now', focus: 'w-3' });
  assert.equal(m.rows.length, TOP_N + 1);
  assert.equal(m.rows[0].name, 'w-199');
  assert.ok(m.rows.some((r) => r.name === 'w-3'));
  assert.equal(m.folded, 200 - TOP_N - 1);
  assert.equal(chartModel(rows, { all: true }).rows.length, 200);
});

test('analyseScenario leaves out each refused change and plans the rest, with the baseline', () => {
  const seen = [];
  const plan = (text) => {
    seen.push(text);
    const doc = JSON.parse(text);
    const i = doc.changes.findIndex((c) => c.member === 'ghost');
    if (i >= 0) throw Object.assign(new Error('no ghost'), { code: 'unknown_member', path: `changes[${i}].member` });
    return { n: doc.changes.length };
  };
  const s = { defaultCap: null, rebalanceDelayMs: null, changes: [{ op: 'add_member', member: 'a' }, { op: 'set_cap', member: 'ghost', cap: 1 }, { op: 'add_member', member: 'b' }] };
  const r = analyseScenario(plan, s);
  assert.deepEqual(r.failures.map((f) => [f.index, f.code, f.path]), [[1, 'unknown_member', 'changes[1].member']]);
  assert.deepEqual(r.view, { n: 2 });
  assert.deepEqual(r.baseline, { n: 0 });
  // a trap is not a refused change: it is thrown
  assert.throws(() => analyseScenario(() => { throw Object.assign(new Error('trap'), { trapped: true }); }, s), /trap/);
});

test('moves slices: exact u128 order, filter by member', () => {
  assert.equal(cmpDecimal('99999999999999999999', '100000000000000000000'), -1);
  const moves = [
    { split: 's-10', weight: '5', from: 'a', to: 'b', reason: 'improve', gain: '100000000000000000000' },
    { split: 's-2', weight: '7', from: 'b', to: 'c', reason: 'improve', gain: '99999999999999999999' },
    { split: 's-1', weight: '7', from: null, to: 'a', reason: 'unowned', gain: null },
  ];
  assert.deepEqual(movesSlice(moves, { sort: 'gain', desc: true }).rows.map((m) => m.split), ['s-10', 's-2', 's-1']);
  assert.deepEqual(movesSlice(moves, { sort: 'split', desc: false }).rows.map((m) => m.split), ['s-1', 's-2', 's-10']);
  assert.deepEqual(movesSlice(moves, { sort: 'split', desc: false, member: 'a' }).rows.map((m) => m.split), ['s-1', 's-10']);
  assert.equal(movesSlice(moves, { filter: 'unowned' }).total, 1);
});

test('summary: today\'s heaviest member, its ratio to the mean, members over the mean and at their cap', () => {
  const gib = 1024n ** 3n;
  const view = planView([member('w-1', String(35n * gib), String(20n * gib), 4, 2), member('w-2', String(10n * gib), String(20n * gib)), member('w-3', String(18n * gib), String(23n * gib))]);
  const s = summarize(view);
  assert.equal(s.worst.name, 'w-1');
  assert.equal(s.worst.ratioNow.toFixed(2), '1.67');
  assert.equal(s.now.overMean, 1);
  assert.equal(s.planned.overMean, 1);
  assert.equal(s.now.full, 0);
  assert.equal(s.planned.full, 1);
});

function member(name, now, planned, lanes = 1, lanesNow = 1) {
  return { name, cap: 4, default_cap: false, lanes, lanes_now: lanesNow, load_now: now, load_planned: planned, gained: 0, lost: 0 };
}

function planView(members) {
  return {
    default_cap: 4, default_cap_source: 'user', default_cap_note: 'set', leader_publishes: true, published: null, findings: [],
    report: {
      members, moves: [], queue: [],
      counts: { splits: 0, assigned: 0, queued: 0, reserved: 0, completed: 0, quarantined: 0, waiting_for_spec: 0 },
      balance: { total: '0', max_load: '0', min_load: '0', mean_load: 0, lower_bound: '0', max_over_bound: 1, max_over_mean: 1 },
      churn: { moves: 0, weight_moved: '0', from_live_members: 0 }, improving_moves: 0, bound_hit: false, improvable: false,
    },
  };
}

test('Markdown report: hostile names rendered by markdown-it give no tag, link or image, and stay whole', () => {
  const hostile = ['<script>alert(1)</script>', '<img src=x onerror=alert(2)>', 'x](javascript:alert(3))', 'tick`` ```', 'pi|pe', 'two\nlines <b>'];
  const view = planView(hostile.map((n) => member(n, '10', '20')));
  view.default_cap_note = `the leader ${JSON.stringify(hostile[1])}'s own max_in_flight [x](javascript:alert(4))`;
  view.findings = hostile.map((n) => ({ level: 'notice', code: 'departed_withheld', message: `${JSON.stringify(n)} departed <img src=y onerror=alert(5)>` }));
  const md = markdownReport({
    info: { job: hostile[0], taken_at_ms: '0', seed: '1' }, source: { label: hostile[2] },
    result: { view, baseline: null, failures: [] },
    scenario: { defaultCap: null, rebalanceDelayMs: null, changes: [] },
    moves: { total: 1, rows: [{ split: hostile[1], weight: '5', from: hostile[4], to: hostile[3], reason: 'improve', gain: null }] }, link: null,
  });
  const mdit = new MarkdownIt({ html: true, linkify: true });
  const walk = (tokens, out = []) => { for (const t of tokens) { out.push(t); if (t.children) walk(t.children, out); } return out; };
  const tokens = walk(mdit.parse(md, {}));
  for (const t of tokens) {
    assert.ok(!['html_block', 'html_inline', 'link_open', 'image'].includes(t.type), `${t.type} from the data: ${t.content}`);
  }
  const html = mdit.render(md);
  for (const tag of ['<script', '<img', '<b>', '<a ']) assert.ok(!html.includes(tag), `${tag} in:\n${html}`);
  // the names are shown whole: one code span each in the members table
  const spans = tokens.filter((t) => t.type === 'code_inline').map((t) => t.content);
  for (const n of hostile) assert.ok(spans.includes(n.replace('\n', ' ')), `${JSON.stringify(n)} among ${JSON.stringify(spans)}`);
  assert.ok(html.includes('&lt;img src=y onerror=alert(5)&gt;'), 'the finding is shown as text');
  assert.equal(text('a<b>[c](d)&e'), 'a\\<b\\>\\[c\\]\\(d\\)\\&e');
});
