// A recording (docs/recording-format.md) through the wasm package and the worker's replay
// module: told from a snapshot by its first line (gzip or not), each moment's fleet handed over
// as a planner, Save snapshot of a moment, errors with code and path; and the page's replay state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadPlanner } from '../wasm.mjs';
import { ReplayJob, recordingBytes, REPLAY_POINTS } from '../../web/live/worker/replay.js';
import { replayLive, withMoment, pointAt } from '../../web/live/shared/state.js';

const wasm = await loadPlanner();
const { Replay } = wasm;
const guard = (fn) => fn();
const T0 = 1767225600000;

const entry = (key, revision, value) => ({ key, revision, created_ms: T0, value });
const bucket = (name, max, revision, entries) => ({ name, history: 1, max_age_ms: max, revision, entries });
const presence = (x, cap) => ({ schema: 3, nonce: `n-${x}`, max_in_flight: cap });

/** Job j: a plan and two members. */
function snapshot() {
  const plan = { schema: 3, fingerprint: 'f', generation: 1, finality: 'open', planned: 0, planner_state: null, updated_at_ms: 0 };
  return {
    format: 'spate-planner-snapshot/1', job: 'j', source: { kind: 'nats', server: 'nats://127.0.0.1:4222' }, taken_at_ms: T0,
    state: bucket('spate_coordination_j_state', 0, 1, [entry('plan', 1, plan)]),
    lease: bucket('spate_coordination_j_lease', 30000, 3, [entry('worker.a', 2, presence('a', 2)), entry('worker.b', 3, presence('b', 2))]),
  };
}

function recording() {
  const put = (t, key, revision, cap) => ({ t, change: { bucket: 'lease', op: 'put', entry: entry(key, revision, presence(key.slice(7), cap)) } });
  return [
    { format: 'spate-planner-recording/1', job: 'j', segment: 1, started_ms: T0, source: { kind: 'nats', server: 'nats://127.0.0.1:4222' } },
    { t: T0, reason: 'start', state: snapshot() },
    put(T0 + 10, 'worker.c', 4, 3),
    { t: T0 + 15, status: { status: 'reconnecting', message: 'lost' } },
    put(T0 + 20, 'worker.b', 5, 6),
  ].map((l) => JSON.stringify(l)).join('\n') + '\n';
}

async function gzip(text) {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

test('a recording is told from a snapshot, gzip or not; a snapshot is not one', async () => {
  const text = recording();
  const bytes = new TextEncoder().encode(text);
  assert.deepEqual(await recordingBytes({ bytes }, Replay, 1 << 20), bytes);
  assert.deepEqual(await recordingBytes({ bytes: await gzip(text) }, Replay, 1 << 20), bytes);
  assert.deepEqual(await recordingBytes({ text }, Replay, 1 << 20), bytes);
  const snap = JSON.stringify(snapshot(), null, 2);
  assert.equal(await recordingBytes({ text: snap }, Replay, 1 << 20), null);
  assert.equal(await recordingBytes({ bytes: await gzip(snap) }, Replay, 1 << 20), null);
  await assert.rejects(recordingBytes({ bytes: await gzip(text) }, Replay, 100), (e) => e.code === 'too_large');
});

test('each moment is a planner of the job then; the overview covers the recorded time', () => {
  const job = new ReplayJob(Replay, new TextEncoder().encode(recording()), guard);
  assert.equal(job.info.moments, 4);
  assert.equal(job.info.job, 'j');
  assert.equal(Number(job.info.end_ms), T0 + 20);
  const { planner, overview } = job.open();
  assert.ok(REPLAY_POINTS >= 4);
  assert.deepEqual(overview.points.map((p) => [p.id, p.at, p.revisions, p.members]), [[0, T0, '1-3', 2], [1, T0 + 10, '1-4', 3], [2, T0 + 15, '1-4', 3], [3, T0 + 20, '1-5', 3]]);
  assert.deepEqual(overview.rows.map((r) => [r.id, r.kind, r.text]), [
    [3, 'cap', 'cap changed: b cap 2 → cap 6'],
    [2, 'status', 'connection: reconnecting (lost)'],
    [1, 'joined', 'member joined: c'],
  ], 'newest first');
  assert.equal(overview.moment.moment, 0, 'the first moment is shown first');
  assert.deepEqual(planner.info().members.map((m) => m.name), ['a', 'b']);
  planner.free();
  const { planner: p3, frame } = job.seek(3);
  assert.deepEqual(p3.info().members.map((m) => [m.name, m.max_in_flight]), [['a', 2], ['b', 6], ['c', 3]]);
  assert.equal(frame.line, 5);
  p3.free();
  const saved = JSON.parse(job.save());
  assert.equal(saved.taken_at_ms, T0 + 20);
  assert.deepEqual(saved.lease.entries.map((e) => [e.key, e.revision]), [['worker.a', 2], ['worker.c', 4], ['worker.b', 5]]);
  assert.match(saved.source.note, /replay of a recording \(line 5\)/);
  assert.equal(Replay.fromBytes(new TextEncoder().encode(recording())).atRevisions('1-4'), 1);
  job.close();
});

test('a bad recording throws with a code and the line; a last line cut short is a warning', () => {
  const lines = recording().split('\n');
  const bad = [...lines.slice(0, 2), '{"t":1,"change":{"bucket":"lease","op":"put","entry":{"key":"worker.x","revision":2,"created_ms":1,"value":{}}}}'].join('\n') + '\n';
  assert.throws(() => Replay.fromBytes(new TextEncoder().encode(bad)), (e) => e.code === 'invalid_value' && e.path === 'line 3.change.revision');
  assert.throws(() => Replay.fromBytes(new TextEncoder().encode(JSON.stringify(snapshot()))), (e) => e.code === 'not_a_recording' && e.path === 'line 1');
  const cut = recording().slice(0, -15);
  const r = Replay.fromBytes(new TextEncoder().encode(cut));
  assert.equal(r.info().moments, 3);
  assert.match(r.info().warnings[0], /^line 5 is cut short/);
});

test('the page\'s replay state: the overview, the moment shown and the chart\'s point at or before it', () => {
  const overview = {
    info: { job: 'j', moments: 9, segments: 1, start_ms: String(T0), end_ms: String(T0 + 90), warnings: [], source: { kind: 'nats', server: 's' } },
    points: [{ id: 0, at: T0 }, { id: 4, at: T0 + 40 }, { id: 8, at: T0 + 90 }],
    rows: [{ id: 4, kind: 'joined', text: 'member joined: c' }],
    moment: { moment: 0, at: T0, revisions: '1-3', line: 2, kind: 'state', rows: [] },
  };
  const live = replayLive(overview, 'j.000001.jsonl');
  assert.equal(live.conn, 'replay');
  assert.equal(live.replay.moments, 9);
  assert.equal(live.selected, 0);
  const later = withMoment(live, { moment: 6, at: T0 + 60, revisions: '1-7', line: 8, kind: 'change', rows: [{ text: 'x' }] });
  assert.equal(later.selected, 4, 'the point at or before moment 6');
  assert.equal(later.revisions, '1-7');
  assert.deepEqual(later.sinceRows, [{ text: 'x' }]);
  assert.equal(later.rows, live.rows, 'the timeline of the whole recording stays');
  assert.equal(pointAt(overview.points, 8), 8);
});

test('a moment planned while the what-if changed is shown with the what-if shown now, planned on that moment', async () => {
  const { ReplaySession } = await import('../../web/live/page/replay.js');
  const before = { changes: [] };
  const after = { changes: [{ op: 'add_member', name: 'x' }] };
  const view = { summary: { now: { max_over_mean: '1.000' }, planned: { max_over_mean: '1.000' }, moves: 0 } };
  const calls = [];
  let seeked;
  const c = {
    loadSeq: 4,
    state: { scenario: before, ready: true, live: { replay: { moments: 3 }, points: [], moment: 0 } },
    client: {
      call(op, args) {
        calls.push([op, args.scenario]);
        if (op === 'replaySeek') return new Promise((done) => { seeked = done; });
        return Promise.resolve({ view, scenario: args.scenario, planned: 'on the moment' });
      },
    },
    dispatchEvent() {},
  };
  const commits = [];
  const session = new ReplaySession(c, (patch) => commits.push(patch));
  const shown = session.seek(2);
  await new Promise((r) => setImmediate(r));
  // the person changes the what-if while moment 3 is planned
  c.state = { ...c.state, scenario: after };
  seeked({ info: { members: [] }, result: { view, scenario: before }, simDefaults: {}, replay: { moment: 2, at: T0, line: 3, kind: 'change', revisions: '1-5', rows: [] } });
  await shown;
  assert.deepEqual(calls.map(([op, s]) => [op, s === after ? 'after' : 'before']), [['replaySeek', 'before'], ['analyse', 'after']]);
  assert.equal(commits.length, 1);
  assert.equal(commits[0].scenario, after, 'the what-if committed with its plan');
  assert.equal(commits[0].result.scenario, after);
  assert.equal(commits[0].result.planned, 'on the moment');
  assert.equal(commits[0].generation, 5);
});

test('the replay bar steps by change: stepAt and stepFrom over the core\'s steps', async () => {
  const { stepAt, stepFrom } = await import('../../web/live/shared/state.js');
  const steps = [0, 3, 4, 9];
  assert.deepEqual([0, 1, 2, 3, 4, 5, 8, 9, 12].map((m) => stepAt(steps, m)), [0, 0, 0, 1, 2, 2, 2, 3, 3]);
  assert.equal(stepFrom(steps, 0, 1), 3);
  assert.equal(stepFrom(steps, 5, 1), 9, 'from a folded moment to the next change');
  assert.equal(stepFrom(steps, 5, -1), 4);
  assert.equal(stepFrom(steps, 9, 1), 9, 'nothing after the last');
  assert.equal(stepFrom(steps, 0, -1), 0, 'nothing before the first');
});
