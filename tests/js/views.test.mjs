// Unit tests of the pure parts of issue 20's keyboard and secondary views: the tab keys, the
// shortcuts' typing rule, warnings by code, the link's whole state, the sweep's default
// ranges, the Compare table's orders and its warning, the Claims view's words, the recovery's
// words. No browser, no wasm.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tabKeyTarget } from '../../web/shell/page/tabs.js';
import { isTyping, shortcutOf } from '../../web/shell/page/keyboard.js';
import { groupWarnings, findingsInOrder } from '../../web/common/shared/warnings.js';
import { toFragment, fromFragment, linkExtras } from '../../web/shell/shared/permalink.js';
import { emptyScenario } from '../../web/common/shared/scenario.js';
import { defaultRange, AXES } from '../../web/review/shared/sweep-model.js';
import { MEMBER_COLUMNS, memberLoads } from '../../web/review/shared/compare-model.js';
import { skippedText, workerFacts, claimsSummary, fencedText } from '../../web/plan/shared/claims-text.js';
import { rowKeyTarget } from '../../web/plan/shared/chart-model.js';
import { shellWord, command, snapshotArg, stemOf } from '../../web/common/shared/cli.js';

test('tab keys (ARIA tab pattern): arrows wrap around, Home is the first tab, End the last; other keys are not theirs', () => {
  assert.equal(tabKeyTarget('ArrowRight', 2, 5), 3);
  assert.equal(tabKeyTarget('ArrowRight', 4, 5), 0);
  assert.equal(tabKeyTarget('ArrowLeft', 0, 5), 4);
  assert.equal(tabKeyTarget('Home', 3, 5), 0);
  assert.equal(tabKeyTarget('End', 1, 5), 4);
  assert.equal(tabKeyTarget('ArrowDown', 1, 5), null);
  assert.equal(tabKeyTarget('Enter', 1, 5), null);
});

const key = (k, target, mods = {}) => ({ key: k, target, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, ...mods });

test('shortcuts act only when nobody types: u undoes, ? opens the help; never in a text field, a select or with Ctrl, Alt, Meta', () => {
  const body = { tagName: 'BODY' };
  const button = { tagName: 'BUTTON' };
  assert.equal(shortcutOf(key('u', body)), 'undo');
  assert.equal(shortcutOf(key('u', button)), 'undo');
  assert.equal(shortcutOf(key('?', button, { shiftKey: true })), 'help');
  assert.equal(shortcutOf(key('u', { tagName: 'INPUT', type: 'checkbox' })), 'undo');
  for (const t of [{ tagName: 'INPUT', type: 'text' }, { tagName: 'INPUT', type: 'number' }, { tagName: 'INPUT', type: 'search' }, { tagName: 'TEXTAREA' }, { tagName: 'SELECT' }, { tagName: 'DIV', isContentEditable: true }]) {
    assert.equal(isTyping(key('u', t)), true, JSON.stringify(t));
    assert.equal(shortcutOf(key('u', t)), null, JSON.stringify(t));
    assert.equal(shortcutOf(key('?', t)), null, JSON.stringify(t));
  }
  for (const mod of ['ctrlKey', 'metaKey', 'altKey']) assert.equal(shortcutOf(key('u', body, { [mod]: true })), null, mod);
  assert.equal(shortcutOf(key('x', body)), null);
  assert.equal(shortcutOf(key('U', body, { shiftKey: true })), null);
  // `/` goes to the member search, except where it is typed
  assert.equal(shortcutOf(key('/', body)), 'search');
  assert.equal(shortcutOf(key('/', button)), 'search');
  assert.equal(shortcutOf(key('/', { tagName: 'INPUT', type: 'search' })), null);
});

test("the chart's row keys: ↓ ↑ one row, stopping at the ends; Home, End; Page Down and Up ten rows; other keys are not theirs", () => {
  assert.equal(rowKeyTarget('ArrowDown', 3, 27), 4);
  assert.equal(rowKeyTarget('ArrowDown', 26, 27), 26);
  assert.equal(rowKeyTarget('ArrowUp', 0, 27), 0);
  assert.equal(rowKeyTarget('ArrowUp', 5, 27), 4);
  assert.equal(rowKeyTarget('Home', 13, 27), 0);
  assert.equal(rowKeyTarget('End', 2, 27), 26);
  assert.equal(rowKeyTarget('PageDown', 20, 27), 26);
  assert.equal(rowKeyTarget('PageDown', 2, 27), 12);
  assert.equal(rowKeyTarget('PageUp', 4, 27), 0);
  for (const k of ['ArrowLeft', 'ArrowRight', 'Enter', ' ', 'Tab']) assert.equal(rowKeyTarget(k, 3, 27), null, k);
});

test('the command line the page copies: plain words as they are, any other in single quotes (a quote inside closed and reopened); the snapshot a file named, else SNAPSHOT.json', () => {
  assert.equal(shellWord('orders-0900.json'), 'orders-0900.json');
  assert.equal(shellWord('my job.json'), "'my job.json'");
  assert.equal(shellWord("it's;rm -rf"), "'it'\\''s;rm -rf'");
  assert.equal(shellWord('$(x)'), "'$(x)'");
  assert.equal(command('plan', 'a b.json', '--what-if', 'x.json'), "spate-planner plan 'a b.json' --what-if x.json");
  assert.equal(snapshotArg({ kind: 'url', label: 'job.json' }), 'job.json');
  assert.equal(snapshotArg({ kind: 'file', label: 'orders.JSON' }), 'orders.JSON');
  assert.equal(snapshotArg({ kind: 'demo', label: 'the built-in demo fleet' }), 'SNAPSHOT.json');
  assert.equal(snapshotArg({ kind: 'url', label: 'https://example.com/a.json' }), 'SNAPSHOT.json');
  assert.equal(snapshotArg({ kind: 'text', label: 'pasted' }), 'SNAPSHOT.json');
  assert.equal(stemOf('orders/eu west'), 'orders_eu_west');
  assert.equal(stemOf(undefined), 'fleet');
});

test('warnings group by code, the largest group first, each with every one of its keys in order', () => {
  const w = [
    { code: 'unreadable_presence', bucket: 'lease', key: 'worker.a', message: 'bad' },
    ...Array.from({ length: 200 }, (_, i) => ({ code: 'no_spec', bucket: 'state', key: `split.p-${i}`, message: `split p-${i} has no spec` })),
  ];
  const g = groupWarnings(w);
  assert.deepEqual(g.map((x) => [x.code, x.count]), [['no_spec', 200], ['unreadable_presence', 1]]);
  assert.equal(g[0].items.length, 200);
  assert.equal(g[0].items[0].key, 'split.p-0');
  assert.equal(g[0].items[199].key, 'split.p-199');
  assert.deepEqual(groupWarnings([]), []);
});

test('findings: fatal first, then warnings, then notices, each kept in the core order', () => {
  const f = [{ level: 'notice', code: 'a' }, { level: 'warning', code: 'b' }, { level: 'fatal', code: 'c' }, { level: 'notice', code: 'd' }, { level: 'fatal', code: 'e' }];
  assert.deepEqual(findingsInOrder(f).map((x) => x.code), ['c', 'e', 'b', 'a', 'd']);
});

test('permalink: the tab, the focused member, the sweep and the earlier snapshot round-trip; the snapshot is named for what depends on it', () => {
  const sweep = { axis: 'default_cap', from: 64, to: 128, cap: 0, crash: true };
  const frag = toFragment(emptyScenario(), { snapshot: 'job@5', tab: 'sweep', member: 'worker-10', sweep, before: { id: 'job@1', url: 'http://127.0.0.1:8080/before.json' } });
  const back = fromFragment(frag);
  assert.equal(back.tab, 'sweep');
  assert.equal(back.member, 'worker-10');
  assert.deepEqual(back.sweep, sweep);
  assert.equal(back.sweepError, null);
  assert.deepEqual(back.before, { id: 'job@1', url: 'http://127.0.0.1:8080/before.json' });
  assert.equal(back.snapshot, 'job@5');
  // a tab alone applies to any snapshot
  assert.equal(toFragment(emptyScenario(), { snapshot: 'job@5', tab: 'claims' }), '#tab=claims');
  // a sweep the link cannot hold is an error, not a sweep
  const bad = fromFragment('#sweep=%7B%22axis%22%3A%22nope%22%2C%22from%22%3A1%2C%22to%22%3A2%7D');
  assert.equal(bad.sweep, null);
  assert.equal(bad.sweepError.code, 'invalid_sweep');
  assert.equal(fromFragment('#sweep=%7Bnot').sweepError.code, 'invalid_sweep');
  assert.equal(fromFragment('#order=planned').before, null);
});

test('permalink: an order the page does not know is name order, with a warning naming it and the known ones', () => {
  const odd = fromFragment('#order=sideways');
  assert.equal(odd.order, 'name');
  assert.equal(odd.orderError.code, 'invalid_order');
  assert.equal(odd.orderError.message, 'the link orders the members by "sideways", which this page does not know (it knows name, now, planned, change); they are ordered by name');
  assert.equal(fromFragment('#order=planned').order, 'planned');
  assert.equal(fromFragment('#order=planned').orderError, null);
  assert.equal(fromFragment('').orderError, null);
  // a key of every object is no order either
  assert.equal(fromFragment('#order=constructor').order, 'name');
});

test("permalink: the store's state gives every part of the link (the sweep under way, else the one shown)", () => {
  const state = {
    order: 'planned', snapshotId: 'job@5', timeline: { script: { events: [] }, b: null }, tab: { id: 'compare', focus: false }, focus: 'worker-3',
    sweep: { params: { axis: 'add_members', from: 0, to: 8, cap: 0 } }, sweepRun: null,
    before: { info: { job: 'job', taken_at_ms: '1' }, url: null },
  };
  assert.deepEqual(linkExtras(state), {
    order: 'planned', snapshot: 'job@5', timeline: state.timeline, tab: 'compare', member: 'worker-3',
    sweep: { axis: 'add_members', from: 0, to: 8, cap: 0 }, before: { id: 'job@1', url: null },
  });
  const running = { ...state, sweepRun: { params: { axis: 'default_cap', from: 2, to: 4, cap: 0 } }, tab: null, focus: null, before: null };
  const x = linkExtras(running);
  assert.deepEqual(x.sweep, { axis: 'default_cap', from: 2, to: 4, cap: 0 });
  assert.equal(x.tab, null);
  assert.equal(x.before, null);
});

test("the sweep's default ranges take in today's value (the core's): a default cap of 96 is swept over 64..128, one inside 2..32 keeps it", () => {
  assert.deepEqual(defaultRange('default_cap', 96), { from: 64, to: 128 });
  assert.deepEqual(defaultRange('default_cap', 8), { from: AXES.default_cap.from, to: AXES.default_cap.to });
  assert.deepEqual(defaultRange('default_cap', 1), { from: 1, to: 32 });
  assert.deepEqual(defaultRange('member_cap', 40), { from: 8, to: 72 });
  // caps that differ have no today's value: the axis's range
  assert.deepEqual(defaultRange('member_cap', null), { from: 2, to: 32 });
  assert.deepEqual(defaultRange('add_members', 0), { from: 0, to: 8 });
});

const diff = (members, before = '1000', after = '2000', warning = null) => ({
  before: { taken_at_ms: before }, after: { taken_at_ms: after }, chronology_warning: warning,
  members: members.map(([name, lb, la, cb, ca]) => ({ name, load_before: lb, load_after: la, cap_before: cb, cap_after: ca, load_change: String(BigInt(la ?? 0) - BigInt(lb ?? 0)) })),
});

test('Compare: members in natural order first, sortable by each column (absent sides last, ties by name)', () => {
  const rows = memberLoads(diff([['worker-10', '5', '1', 4, 4], ['worker-100', null, '9', null, 8], ['worker-2', '7', null, 4, null], ['worker-1', '5', '5', 4, 2]]));
  const order = (i, desc = false) => rows.slice().sort((a, b) => (desc ? -1 : 1) * MEMBER_COLUMNS[i][1](a, b)).map((r) => r.name);
  assert.deepEqual(MEMBER_COLUMNS.map((c) => c[0]), ['member', 'before', 'after', 'change', 'cap']);
  assert.deepEqual(order(0), ['worker-1', 'worker-2', 'worker-10', 'worker-100']);
  assert.deepEqual(order(1), ['worker-1', 'worker-10', 'worker-2', 'worker-100']);
  assert.deepEqual(order(2), ['worker-10', 'worker-1', 'worker-100', 'worker-2']);
  assert.deepEqual(order(3), ['worker-2', 'worker-10', 'worker-1', 'worker-100']);
  assert.deepEqual(order(4), ['worker-1', 'worker-10', 'worker-100', 'worker-2']);
});

test('Claims: the core\'s "skipped" words with how many, the facts of a worker, the totals; idle members folded', () => {
  assert.equal(skippedText({ skipped: 0, skipped_why: null }), '');
  assert.equal(skippedText({ skipped: 3414, skipped_why: 'not in its assignment, or beyond its cap of 4 lanes' }),
    '3,414 candidates skipped: not in its assignment, or beyond its cap of 4 lanes');
  assert.equal(skippedText({ skipped: 1, skipped_why: 'not in its assignment' }), '1 candidate skipped: not in its assignment');
  assert.equal(workerFacts({ skipped: 0, skipped_why: null, held: 1200, cap: 2048, has_assignment: true }), 'holds 1,200 of 2,048 lanes; has an assignment');
  assert.equal(fencedText([]), '');
  assert.match(fencedText(['s9', 's10']), /^fenced, .*not held, not drained, no lane\): s9, s10$/);
  const doc = { assignment_source: 'plan', max_attempts: 4, totals: { members: 3, actions: 1, acting: 2, idle: 1 } };
  assert.equal(claimsSummary(doc), '3 live members, 1 action (acting on the plan; max_attempts 4). 1 of them has nothing to claim, quarantine, drain or drop.');
  // one member shown, whatever it does: no idle count
  assert.equal(claimsSummary({ ...doc, assignment_source: 'published', totals: { members: 1, actions: 1, acting: 0, idle: 1 } }, true),
    '1 live member, 1 action (acting on the published records; max_attempts 4).');
  assert.equal(claimsSummary({ ...doc, totals: { members: 2048, actions: 12000, acting: 2000, idle: 48 } }),
    '2,048 live members, 12,000 actions (acting on the plan; max_attempts 4). 48 of them have nothing to claim, quarantine, drain or drop.');
});

