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
