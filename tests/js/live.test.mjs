// Unit tests of the live page's pure modules: the worker's change buffer, the timeline rows
// derived from two fleets and from the changed keys, and the page's bounded live state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChangeBuffer, changeMeta, coalesce } from '../../web/live/worker/buffer.js';
import { fleetRows, SplitsView, assignRows, namesText, MAX_NAMES, figuresPoint } from '../../web/live/worker/events.js';
import { initialLive, withFrame, withStatus, liveStatus, thin, MAX_ROWS, MAX_POINTS, MAX_HISTORY, viewAt, clock } from '../../web/live/shared/state.js';

const put = (bucket, key, revision, value) => JSON.stringify({ bucket, op: 'put', entry: { key, revision, created_ms: 1, value } });
const del = (bucket, key, revision, op = 'delete') => JSON.stringify({ bucket, op, key, revision });

test('a change event is read for its bucket, op, key and revision; anything else is refused', () => {
  assert.deepEqual(changeMeta(put('lease', 'worker.a', 7, { schema: 3 })), { bucket: 'lease', op: 'put', key: 'worker.a', revision: 7, entry: { key: 'worker.a', revision: 7, created_ms: 1, value: { schema: 3 } } });
  assert.deepEqual(changeMeta(del('state', 'split.x', 9, 'purge')), { bucket: 'state', op: 'purge', key: 'split.x', revision: 9, entry: null });
  assert.equal(changeMeta('{not json'), null);
  assert.equal(changeMeta('{"bucket":"state","op":"put"}'), null);
  assert.equal(changeMeta('3'), null);
});

test('the buffer keeps one change per key, in the order of their last change, and the data as sent', () => {
  const b = new ChangeBuffer();
  const first = put('lease', 'worker.a', 1, { n: 1 });
  const big = '{"bucket":"state","op":"put","entry":{"key":"split.s","revision":2,"created_ms":1,"value":{"fp":18446744073709551615}}}';
  assert.equal(b.putChange(first), true);
  assert.equal(b.putChange(big), true);
  assert.equal(b.putChange(put('lease', 'worker.a', 3, { n: 3 })), true);
  assert.equal(b.putChange(put('state', 'worker.a', 4, {})), true); // same key, other bucket
  assert.equal(b.putChange('garbage'), false);
  const out = b.take();
  assert.equal(out.received, 4);
  assert.deepEqual(out.changes.map((c) => `${c.meta.bucket}:${c.meta.key}@${c.meta.revision}`), ['state:split.s@2', 'lease:worker.a@3', 'state:worker.a@4']);
  assert.equal(out.changes[0].data, big, 'u64 values must reach the wasm parser as sent');
  assert.equal(b.empty, true);
  assert.equal(b.take().changes.length, 0);
});

test('an expire after a put of its revision is a delete; after another put or a delete it does nothing', () => {
  const p5 = { data: put('lease', 'k', 5, {}), meta: changeMeta(put('lease', 'k', 5, {})) };
  const p6 = { data: put('lease', 'k', 6, {}), meta: changeMeta(put('lease', 'k', 6, {})) };
  const d7 = { data: del('lease', 'k', 7), meta: changeMeta(del('lease', 'k', 7)) };
  const e5 = { data: del('lease', 'k', 5, 'expire'), meta: changeMeta(del('lease', 'k', 5, 'expire')) };
  const merged = coalesce(p5, e5);
  assert.deepEqual(JSON.parse(merged.data), { bucket: 'lease', op: 'delete', key: 'k', revision: 5 });
  assert.equal(merged.meta.op, 'delete');
  assert.equal(coalesce(p6, e5), p6);
  assert.equal(coalesce(d7, e5), d7);
  assert.equal(coalesce(p5, p6), p6);
  assert.equal(coalesce(p6, d7), d7);
});

test('a full state replaces the changes before it; later changes follow it', () => {
  const b = new ChangeBuffer();
  b.putChange(put('lease', 'worker.a', 1, {}));
  b.putSnapshot('{"format":"spate-planner-snapshot/1"}', '9-9');
  b.putChange(put('lease', 'worker.b', 10, {}));
  const out = b.take();
  assert.deepEqual(out.snapshot, { text: '{"format":"spate-planner-snapshot/1"}', id: '9-9' });
  assert.deepEqual(out.changes.map((c) => c.meta.key), ['worker.b']);
});

test('two fleets compared: joined, left, caps, leader and plan generation', () => {
  const info = (members, leader, gen) => ({ members: members.map(([name, cap]) => ({ name, max_in_flight: cap })), leader, plan_generation: gen });
  const prev = info([['a', 4], ['b', 2], ['c', null]], 'a', '2');
  const next = info([['a', 6], ['c', 3], ['d', 1]], 'c', '3');
  assert.deepEqual(fleetRows(prev, next).map((r) => [r.kind, r.text]), [
    ['joined', 'member joined: d'],
    ['left', 'member left: b'],
    ['cap', '2 caps changed: a cap 4 → cap 6, c no cap of its own → cap 3'],
    ['leader', 'leader a → c'],
    ['plan', 'plan generation 2 → 3'],
  ]);
  assert.deepEqual(fleetRows(prev, prev), []);
  assert.deepEqual(fleetRows(null, next), []);
});

test('a row names at most MAX_NAMES, then counts the rest', () => {
  const names = Array.from({ length: MAX_NAMES + 3 }, (_, i) => `w${i}`);
  assert.equal(namesText(names), `${names.slice(0, MAX_NAMES).join(', ')} and 3 more`);
  const prev = { members: [], leader: null, plan_generation: null };
  const r = fleetRows(prev, { ...prev, members: names.map((name) => ({ name, max_in_flight: 1 })) })[0];
  assert.equal(r.names.length, MAX_NAMES);
  assert.match(r.text, /^11 members joined: w0, .* and 3 more$/);
});

test('splits: a claim is a lease of a new owner (not a renewal); a completion or quarantine is a change of status', () => {
  const view = new SplitsView([{ id: 's1', status: 'runnable', lease_owner: 'a' }, { id: 's2', status: 'completed', lease_owner: null }]);
  const ch = (data) => ({ data, meta: changeMeta(data) });
  const rows = view.rows([
    ch(put('lease', 'split.s1', 1, { owner: 'a', epoch: 3 })), // renewal
    ch(put('lease', 'split.s3', 2, { owner: 'b', epoch: 1 })), // a claim
    ch(put('state', 'split.s2', 3, { status: 'completed' })), // a rewrite of a completed split
    ch(put('state', 'split.s1', 4, { status: 'completed' })),
    ch(put('state', 'split.s4', 5, { status: 'quarantined' })),
    ch(put('state', 'assign.a', 6, { splits: [] })),
  ]);
  assert.deepEqual(rows.map((r) => [r.kind, r.text]), [
    ['claimed', 'split claimed: s3 by b'],
    ['completed', 'split completed: s1'],
    ['quarantined', 'split quarantined: s4'],
  ]);
  const again = view.rows([ch(put('lease', 'split.s3', 7, { owner: 'c' })), ch(del('lease', 'split.s1', 8)), ch(put('lease', 'split.s1', 9, { owner: 'a' }))]);
  assert.deepEqual(again.map((r) => r.text), ['2 splits claimed: s3 by c (from b), s1 by a']);
  assert.deepEqual(assignRows([ch(put('state', 'assign.a', 6, {})), ch(del('state', 'assign.b', 7)), ch(put('lease', 'assign.c', 8, {}))]).map((r) => r.text),
    ['assignment published for: a', 'assignment removed for: b']);
});

test('splits: the view of Planner.splitStates (parallel arrays) is the view of the split lines', () => {
  const lines = [{ id: 's1', status: 'runnable', lease_owner: 'a' }, { id: 's2', status: 'completed', lease_owner: null }];
  const of = SplitsView.of({ ids: ['s1', 's2'], status: ['runnable', 'completed'], lease: ['a', null] });
  assert.deepEqual([...of.splits], [...new SplitsView(lines).splits]);
});

function view(members = 2) {
  return {
    published: { changes: 3 },
    warnings: [{ code: 'x' }],
    report: {
      members: Array.from({ length: members }, (_, i) => ({ name: `w${i}` })),
      queue: ['q1', 'q2'],
      balance: { max_over_mean: 1.25, max_load: '100', mean_load: 80 },
      counts: { queued: 2, completed: 1, quarantined: 0 },
      churn: { moves: 5 },
    },
  };
}

test('a frame adds its rows (newest first), a point and a slim plan view', () => {
  let live = initialLive('orders', '/api/live');
  const frame = (rows, revisions) => ({ revisions, rows, point: figuresPoint(view()), lastChangeMs: 1000 });
  live = withFrame(live, frame([{ kind: 'joined', text: 'member joined: a', names: ['a'] }], '5-5'), view(), 30000, 2000);
  live = withFrame(live, frame([{ kind: 'left', text: 'l1', names: [] }, { kind: 'cap', text: 'c1', names: [] }], '6-5'), view(3), 30000, 3000);
  assert.deepEqual(live.rows.map((r) => [r.id, r.text, r.revisions]), [[2, 'c1', '6-5'], [2, 'l1', '6-5'], [1, 'member joined: a', '5-5']]);
  assert.deepEqual(live.points.map((p) => [p.id, p.revisions, p.moves, p.fromPublished, p.maxLoad]), [[1, '5-5', 5, 3, 100], [2, '6-5', 5, 3, 100]]);
  assert.equal(live.conn, 'live');
  assert.equal(live.revisions, '6-5');
  const kept = viewAt(live, 2);
  assert.equal(kept.report.members.length, 3);
  assert.deepEqual(kept.report.queue, []);
  assert.equal(kept.report.queued_ids, 2);
  assert.deepEqual(kept.warnings, []);
  assert.equal(viewAt(live, 99), null);
});

test('the live state stays bounded however long the page is open', () => {
  let live = initialLive('orders', '/api/live');
  const rows = [{ kind: 'joined', text: 'x', names: [] }, { kind: 'left', text: 'y', names: [] }];
  for (let i = 0; i < 3000; i++) live = withFrame(live, { revisions: `${i}-0`, rows, point: figuresPoint(view()), lastChangeMs: i }, view(), 30000, i);
  assert.equal(live.rows.length, MAX_ROWS);
  assert.ok(live.points.length <= MAX_POINTS, `${live.points.length} points`);
  assert.ok(live.points.length > MAX_POINTS / 2);
  assert.equal(live.history.length, MAX_HISTORY);
  assert.equal(live.points[live.points.length - 1].revisions, '2999-0');
  assert.equal(live.points[0].revisions, '0-0', 'the first moment is kept');
  assert.deepEqual(live.history.map((h) => h.id), Array.from({ length: MAX_HISTORY }, (_, i) => 3000 - MAX_HISTORY + 1 + i));
});

test('thinning keeps the newest half whole and the point picked', () => {
  const pts = Array.from({ length: 10 }, (_, i) => ({ id: i }));
  assert.deepEqual(thin(pts, 10), pts);
  assert.deepEqual(thin(pts, 9).map((p) => p.id), [0, 2, 4, 5, 6, 7, 8, 9]);
  assert.deepEqual(thin(pts, 9, 3).map((p) => p.id), [0, 2, 3, 4, 5, 6, 7, 8, 9]);
});

test('status: paused over everything, then the connection, then stale; a new status is a timeline row', () => {
  let live = withFrame(initialLive('j', 'u'), { revisions: '1-1', rows: [], point: figuresPoint(view()), lastChangeMs: 0 }, view(), 30000, 0);
  assert.equal(liveStatus(live), 'live');
  assert.equal(liveStatus({ ...live, stale: true }), 'stale');
  live = withStatus(live, { status: 'reconnecting', message: 'lost' }, 5000);
  assert.equal(liveStatus({ ...live, stale: true }), 'reconnecting');
  assert.equal(liveStatus({ ...live, paused: true }), 'paused');
  assert.deepEqual(live.rows.map((r) => [r.kind, r.text]), [['status', 'connection: reconnecting (lost)']]);
  assert.equal(withStatus(live, { status: 'reconnecting', message: 'lost' }, 6000), live, 'the same status adds no row');
  live = withStatus(live, { status: 'live', message: '' }, 7000);
  assert.equal(live.rows[0].text, 'connection: live');
  assert.equal(liveStatus(null), null);
  assert.equal(clock(Date.UTC(2026, 0, 1, 13, 4, 5)), '13:04:05');
});
