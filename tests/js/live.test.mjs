// Unit tests of the live page's pure modules: the page's bounded live state (the timeline rows
// themselves are the core's frame events: crate/core/src/live/events.rs, crate/core/tests/live.rs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { initialLive, withFrame, withStatus, liveStatus, isStale, thin, MAX_ROWS, MAX_POINTS, MAX_HISTORY, viewAt, clock, instant, happenedAt, replayLive } from '../../web/live/shared/state.js';

function view(members = 2) {
  return {
    published: { changes: 3 },
    warnings: [{ code: 'x' }],
    summary: { members },
    report: {
      members: Array.from({ length: members }, (_, i) => ({ name: `w${i}` })),
      queue: ['q1', 'q2'],
      balance: { max_over_mean: 1.25, max_load: '100', mean_load: 80 },
      counts: { queued: 2, completed: 1, quarantined: 0 },
      churn: { moves: 5 },
    },
  };
}

/** A moment's figures as Planner.analyse gives them (`moment`: the core's MomentFigures). */
function point(members = 2) {
  return { members, maxOverMean: 1.25, maxOverBound: 1.1, maxLoad: '100', meanLoad: 80, queued: 2, moves: 5, fromPublished: 3, completed: 1, quarantined: 0, warnings: 1, rules: '0.1' };
}

/** The core's freshness (`Planner.freshness`) of a last change at `at` with a 30 s TTL. */
const fresh = (at, ttl = 30000) => ({ last_change_ms: String(at), lease_ttl_ms: String(ttl), stale_after_ms: ttl ? String(at + ttl) : null });

test('a frame adds its rows (newest first), a point and a slim plan view', () => {
  let live = initialLive('orders', '/api/live');
  const frame = (rows, revisions) => ({ revisions, rows, point: point(), lastChangeMs: 1000, freshness: fresh(1000) });
  live = withFrame(live, frame([{ kind: 'joined', text: 'member joined: a', names: ['a'] }], '5-5'), view(), 2000);
  live = withFrame(live, frame([{ kind: 'left', text: 'l1', names: [] }, { kind: 'cap', text: 'c1', names: [] }], '6-5'), view(3), 3000);
  assert.deepEqual(live.rows.map((r) => [r.id, r.text, r.revisions]), [[2, 'c1', '6-5'], [2, 'l1', '6-5'], [1, 'member joined: a', '5-5']]);
  assert.deepEqual(live.points.map((p) => [p.id, p.revisions, p.moves, p.fromPublished, p.maxLoad, p.members]), [[1, '5-5', 5, 3, '100', 2], [2, '6-5', 5, 3, '100', 2]]);
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
  for (let i = 0; i < 3000; i++) live = withFrame(live, { revisions: `${i}-0`, rows, point: point(), lastChangeMs: i, freshness: fresh(i) }, view(), i);
  assert.equal(live.rows.length, MAX_ROWS);
  assert.ok(live.points.length <= MAX_POINTS, `${live.points.length} points`);
  assert.ok(live.points.length > MAX_POINTS / 2);
  assert.equal(live.history.length, MAX_HISTORY);
  assert.equal(live.points[live.points.length - 1].revisions, '2999-0');
  assert.equal(live.points[0].revisions, '0-0', 'the first moment is kept');
  assert.deepEqual(live.history.map((h) => h.id), Array.from({ length: MAX_HISTORY }, (_, i) => 3000 - MAX_HISTORY + 1 + i));
});

test('rows past the bound are counted, and a moment whose rows went says so rather than that nothing happened', () => {
  let live = initialLive('orders', '/api/live');
  const frame = (rows) => ({ revisions: '1-1', rows, point: point(), lastChangeMs: 0, freshness: fresh(0) });
  // frame 1: a replan only; frames 2..: three rows each
  live = withFrame(live, frame([]), view(), 0);
  const three = (i) => [0, 1, 2].map((k) => ({ kind: 'joined', text: `r${i}.${k}`, names: [] }));
  for (let i = 2; i <= 200; i++) live = withFrame(live, frame(three(i)), view(), i);
  // 199 frames × 3 = 597 rows: the newest 400 kept (frames 68.. whole, one row of frame 67), 197 counted
  assert.equal(live.rows.length, MAX_ROWS);
  assert.equal(live.rowsDropped, 597 - MAX_ROWS);
  assert.equal(live.droppedThrough, 67);
  assert.equal(happenedAt(live, 200), 'Then: r200.2; r200.1; r200.0.');
  assert.equal(happenedAt(live, 67), 'Then: r67.2; and more, no longer kept.');
  assert.equal(happenedAt(live, 30), `What changed in the store at this moment is no longer kept (the timeline keeps the newest ${MAX_ROWS} events).`);
  assert.equal(happenedAt(live, 1), `What changed in the store at this moment is no longer kept (the timeline keeps the newest ${MAX_ROWS} events).`);
  // a frame with no rows, newer than every dropped row: a replan only
  live = withFrame(live, frame([]), view(), 201);
  assert.equal(happenedAt(live, 201), 'Nothing new in the store at this moment (a replan only).');
  assert.equal(live.rowsDropped, 197, 'a frame without rows drops none');
  // a status row pushes one more out
  live = withStatus(live, { status: 'reconnecting', message: 'lost' }, 202);
  assert.equal(live.rowsDropped, 198);
});

test('thinning keeps the newest half whole and the point picked', () => {
  const pts = Array.from({ length: 10 }, (_, i) => ({ id: i }));
  assert.deepEqual(thin(pts, 10), pts);
  assert.deepEqual(thin(pts, 9).map((p) => p.id), [0, 2, 4, 5, 6, 7, 8, 9]);
  assert.deepEqual(thin(pts, 9, 3).map((p) => p.id), [0, 2, 3, 4, 5, 6, 7, 8, 9]);
});

test('status: paused over everything, then the connection, then stale; a new status is a timeline row', () => {
  let live = withFrame(initialLive('j', 'u'), { revisions: '1-1', rows: [], point: point(), lastChangeMs: 0, freshness: fresh(1000) }, view(), 0);
  assert.equal(liveStatus(live), 'live');
  // stale is the core's deadline passed: a whole TTL after the last change, not at it
  assert.equal(live.staleAfterMs, 31000);
  assert.deepEqual([isStale(live, 31000), isStale(live, 31001)], [false, true]);
  const never = withFrame(live, { revisions: '1-2', rows: [], point: point(), freshness: fresh(1000, 0) }, view(), 0);
  assert.equal(isStale(never, Number.MAX_SAFE_INTEGER), false, 'no TTL: never stale');
  assert.equal(liveStatus({ ...live, stale: true }), 'stale');
  live = withStatus(live, { status: 'reconnecting', message: 'lost' }, 5000);
  assert.equal(liveStatus({ ...live, stale: true }), 'reconnecting');
  assert.equal(liveStatus({ ...live, paused: true }), 'paused');
  assert.deepEqual(live.rows.map((r) => [r.kind, r.text]), [['status', 'connection: reconnecting (lost)']]);
  assert.equal(withStatus(live, { status: 'reconnecting', message: 'lost' }, 6000), live, 'the same status adds no row');
  live = withStatus(live, { status: 'live', message: '' }, 7000);
  assert.equal(live.rows[0].text, 'connection: live');
  assert.equal(liveStatus(null), null);
  // a stopped recording is told with a status, kept with every later one, and a row of its own
  const why = 'the recording of job j stopped: /r was removed';
  live = withStatus(live, { status: 'live', message: '', recording: why }, 8000);
  assert.equal(live.recording, why);
  assert.deepEqual(live.rows[0], { ...live.rows[0], kind: 'status', text: why });
  live = withStatus(live, { status: 'reconnecting', message: 'lost' }, 9000);
  assert.equal(live.recording, why, 'a later status keeps it');
  assert.equal(live.conn, 'reconnecting');
  assert.equal(liveStatus(withStatus(live, { status: 'catching_up', message: 'fell behind' }, 9500)), 'catching_up');
  assert.equal(clock(Date.UTC(2026, 0, 1, 13, 4, 5)), '13:04:05');
});

test('the list of live jobs: an answer of another shape is refused with a coded error naming the endpoint', async () => {
  const { listJobs } = await import('../../web/live/page/session.js');
  const saved = { document: globalThis.document, fetch: globalThis.fetch };
  globalThis.document = { baseURI: 'http://127.0.0.1:8080/planner/' };
  const answer = (status, text) => async () => new Response(text, { status });
  try {
    globalThis.fetch = answer(200, '{"job":null,"jobs":[{"job":"orders"},{"job":"g"}]}');
    assert.deepEqual((await listJobs('/planner/api/live')).jobs.map((j) => j.job), ['orders', 'g']);
    const refused = async (status, text, why) => {
      globalThis.fetch = answer(status, text);
      await assert.rejects(listJobs('/planner/api/live'), (e) => e.code === 'live_jobs' && e.path === 'http://127.0.0.1:8080/planner/api/jobs' && why.test(e.message));
    };
    await refused(200, '<!doctype html><p>a proxy</p>', /not JSON/);
    await refused(200, '{"items":[]}', /no "jobs" field/);
    await refused(200, '{"jobs":[{"name":"x"}]}', /no "jobs" field/);
    await refused(200, '{"job":7,"jobs":[]}', /"job" field that is not a name/);
    await refused(503, '{"error":"8 jobs are followed already"}', /^8 jobs are followed already$/);
    await refused(502, 'Bad Gateway', /HTTP 502/);
  } finally {
    Object.assign(globalThis, saved);
  }
});

test('a moment is written as the core writes one: date, time to the millisecond, and zone', () => {
  // crate/core/src/utc.rs utc_millis_text: `YYYY-MM-DD hh:mm:ss.mmm UTC`
  assert.equal(instant(1767225600123), '2026-01-01 00:00:00.123 UTC');
  assert.equal(instant(1764936203934), '2025-12-05 12:03:23.934 UTC');
  assert.equal(instant(Number.NaN), '');
});

test('the chart\'s point is the core\'s MomentFigures: the numbers watch prints and /metrics exposes for the same fleet', async () => {
  const { loadPlanner } = await import('../wasm.mjs');
  const { Planner } = await loadPlanner();
  // the fleet crate/cli/src/metrics/mod.rs's test plans as `watch` and as /metrics: the same numbers
  const planner = Planner.demo(300, 6, 4);
  const r = planner.analyse('');
  const m = r.moment;
  assert.deepEqual([m.members, m.queued, m.moves, m.fromPublished, m.completed, m.quarantined, m.warnings, m.maxLoad], [6, 0, 57, 102, 39, 6, 8, '11653808723']);
  // each one the plan document's
  const doc = JSON.parse(planner.planJson(''));
  const b = doc.report.balance;
  assert.deepEqual([m.maxOverMean, m.maxOverBound, m.meanLoad, m.rules], [b.max_over_mean, b.max_over_bound, b.mean_load, doc.rules]);
  assert.equal(m.maxLoad, b.max_load);
  assert.equal(m.fromPublished, doc.published.changes);
  assert.equal(m.warnings, doc.warnings.length);
  // with a what-if, the point stays the leader's plan (the baseline's)
  const what = planner.analyse(JSON.stringify({ changes: [{ op: 'remove_member', member: r.view.report.members[0].name }] }));
  assert.ok(what.baseline, 'the what-if has a baseline');
  assert.deepEqual(what.moment, m);
  planner.free();
});
