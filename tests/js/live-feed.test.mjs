// The worker's live feed: the first state fetched as bytes beside the stream, the stream opened
// from its revisions; when that fetch fails, the stream's own first `snapshot` event.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LiveFeed } from '../../web/live/worker/feed.js';

/** An EventSource that records its URL and lets the test dispatch events. */
class FakeSource {
  static CLOSED = 2;
  static opened = [];
  constructor(url) {
    this.url = url;
    this.readyState = 1;
    this.handlers = {};
    FakeSource.opened.push(this);
  }
  addEventListener(type, f) { this.handlers[type] = f; }
  emit(type, data, lastEventId = '') { this.handlers[type]({ data, lastEventId }); }
  close() { this.readyState = FakeSource.CLOSED; }
}

function withFakes(fetchImpl, body) {
  return async () => {
    const saved = { fetch: globalThis.fetch, EventSource: globalThis.EventSource };
    globalThis.fetch = fetchImpl;
    globalThis.EventSource = FakeSource;
    FakeSource.opened = [];
    try {
      await body();
    } finally {
      Object.assign(globalThis, saved);
    }
  };
}

const STREAM = 'http://h/api/live?job=orders';

test('the first state is fetched as bytes from snapshot beside the stream, and the stream opens from its revisions', withFakes(
  async (url) => {
    assert.equal(url, 'http://h/api/snapshot?job=orders');
    return new Response('{"format":"x"}', { headers: { 'x-spate-revisions': '12-34' } });
  },
  async () => {
    const feed = new LiveFeed(STREAM, () => {});
    const first = await feed.first;
    assert.deepEqual([...first.bytes], [...new TextEncoder().encode('{"format":"x"}')]);
    assert.equal(first.text, undefined);
    assert.equal(feed.lastId, '12-34');
    await new Promise((r) => setTimeout(r, 0));
    assert.equal(FakeSource.opened.length, 1);
    assert.equal(FakeSource.opened[0].url, 'http://h/api/live?job=orders&since=12-34');
    feed.close();
  },
));

for (const [what, fetchImpl] of [
  ['refused', async () => new Response('{"error":"no"}', { status: 404 })],
  ['without revisions', async () => new Response('{}')],
  ['unreachable', async () => { throw new TypeError('fetch failed'); }],
]) {
  test(`when the snapshot fetch is ${what}, the stream's first snapshot event is the first state`, withFakes(fetchImpl, async () => {
    const feed = new LiveFeed(STREAM, () => {});
    await new Promise((r) => setTimeout(r, 0));
    assert.equal(FakeSource.opened.length, 1);
    assert.equal(FakeSource.opened[0].url, STREAM, 'opened from nothing');
    FakeSource.opened[0].emit('snapshot', 'the text', '5-6');
    const first = await feed.first;
    assert.equal(first.text, 'the text');
    assert.equal(first.bytes, undefined);
    assert.equal(feed.lastId, '5-6');
    feed.close();
  }));
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

test('a stream silent for twice the heartbeat interval is said to be silent (not live) and opened again from the last event', withFakes(
  async () => new Response('{"format":"x"}', { headers: { 'x-spate-revisions': '12-34' } }),
  async () => {
    const statuses = [];
    const feed = new LiveFeed(STREAM, (m) => { if (m.status) statuses.push(m.status); }, { change: () => true, snapshot() {} });
    await feed.first;
    await sleep(0);
    const es = FakeSource.opened[0];
    es.emit('status', '{"status":"live"}');
    await sleep(150);
    assert.deepEqual(statuses.map((s) => s.status), ['live'], 'no heartbeat known yet: silence says nothing');
    es.emit('heartbeat', '{"interval_ms":60}');
    for (let i = 0; i < 5; i++) {
      await sleep(40);
      es.emit('heartbeat', '{"interval_ms":60}');
    }
    es.emit('change', 'c', '12-35');
    assert.deepEqual(statuses.map((s) => s.status), ['live'], 'heartbeats within the interval keep it live');
    await sleep(200);
    assert.equal(statuses.at(-1).status, 'silent', JSON.stringify(statuses));
    assert.match(statuses.at(-1).message, /nothing came from the server for 0\.12 s \(it sends a heartbeat every 0\.06 s\)/);
    assert.equal(es.readyState, FakeSource.CLOSED, 'the silent stream is closed');
    assert.ok(FakeSource.opened.length >= 2);
    assert.equal(FakeSource.opened[1].url, `${STREAM}&since=12-35`, 'opened again from the last event');
    feed.close();
  },
));

test('a refused live start is tried again with a growing delay, the page told each time, until it succeeds (openLive)', async () => {
  const { openLive } = await import('../../web/live/worker/job.js');
  let answers = 0;
  const busy = () => new Response('{"error":"4 full states are being sent; try again"}', { status: 503, headers: { 'retry-after': '2' } });
  await withFakes(async (url) => {
    answers++;
    // the snapshot and the refusal's reason: busy for the first two starts, then the state
    if (answers <= 4) return busy();
    return new Response('{"format":"x"}', { headers: { 'x-spate-revisions': '7-8' } });
  }, async () => {
    const posted = [];
    const opening = openLive({ url: STREAM }, (m) => posted.push(m.live), { Planner: {}, infoOf() {}, guard: (f) => f() });
    let settled = false;
    opening.then(() => { settled = true; }, () => { settled = true; });
    for (const n of [1, 2]) {
      while (FakeSource.opened.length < n) await sleep(5);
      const es = FakeSource.opened[n - 1];
      assert.equal(es.url, STREAM, 'no first state yet: the stream opens from nothing');
      es.readyState = FakeSource.CLOSED;
      es.onerror();
      while (posted.length < n) await sleep(5);
      assert.equal(settled, false, 'a refused start does not end the live job');
    }
    assert.deepEqual(posted.map((m) => m.status.status), ['error', 'error']);
    assert.match(posted[0].status.message, /^the live stream was refused: 4 full states are being sent; try again; trying again in 0\.25 s$/);
    assert.match(posted[1].status.message, /trying again in 1 s$/, 'the delay grows');
    const { live } = await opening;
    assert.equal(live.shown, '7-8', 'the state of the start that succeeded');
    assert.deepEqual([...live.first.bytes], [...new TextEncoder().encode('{"format":"x"}')]);
    await sleep(0);
    assert.equal(FakeSource.opened.at(-1).url, `${STREAM}&since=7-8`);
    live.close();
  })();
});
