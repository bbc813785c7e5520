// The live page when something around the server goes wrong (issue 32), in Chromium against the
// real `serve --server` and a real nats-server; between them and the page a small proxy in this
// test that can refuse the first live starts or hold the stream at a chosen event:
// - a start refused with 503 is tried again with backoff, the bar saying so, until the page is live;
// - a page sent the whole state again (here after NATS restarts) is told it is catching up and says
//   "Catching up", never "Live", until the whole state is in;
// - a store that stops answering while the connection stays up (nats-server stopped with SIGSTOP)
//   turns the bar to "Stale" with the server's words, and back to "Live" once it answers;
// - a recording (serve --record) whose directory is removed is said on the bar.
// Each prints how long it took. No console error, no CSP violation.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, launch, watchedPage, ready } from './browser.mjs';
import { startNats, writeDemoJob } from './live-fixture.mjs';

const JOB = 'faults';
/** The longest wait for what must happen: only a hang ends it, never a busy machine. */
const PATIENCE = 120000;
/** `serve --stale-after`, short so that the test waits less. */
const STALE_AFTER_S = 3;
let chrome;
let nats;
let server;

before(async () => {
  nats = await startNats();
  await writeDemoJob(nats, JOB, { splits: 2000, members: 20 });
  server = await startServer(['--server', nats.url, '--stale-after', String(STALE_AFTER_S)]);
  chrome = await launch();
});
after(async () => {
  await chrome?.close();
  server?.stop();
  await nats?.stop();
});

/**
 * A proxy to the server. `faults.refuse`: how many more live starts (`/api/snapshot` and
 * `/api/live` requests) to answer 503; `faults.holdAfter`: a string after whose chunk the event
 * stream is held for `faults.holdMs`. Resolves to { url, faults, close }.
 */
function proxy(upstream) {
  const to = new URL(upstream);
  const faults = { refuse: 0, refused: 0, holdAfter: null, holdMs: 0, held: 0 };
  const srv = http.createServer((req, res) => {
    if (faults.refuse > 0 && /^\/api\/(snapshot|live)/.test(req.url)) {
      faults.refuse--;
      faults.refused++;
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '2' });
      res.end('{"error":"4 full states are being sent already; try again in 2 s"}');
      return;
    }
    // the server answers its own names only: the proxy speaks for the page under them
    const headers = { ...req.headers, host: to.host };
    if (headers.origin) headers.origin = `http://${to.host}`;
    const up = http.request({ host: to.hostname, port: to.port, path: req.url, method: req.method, headers }, (r) => {
      res.writeHead(r.statusCode, r.headers);
      r.on('data', (chunk) => {
        res.write(chunk);
        if (faults.holdAfter && chunk.toString().includes(faults.holdAfter)) {
          faults.holdAfter = null;
          faults.held++;
          r.pause();
          setTimeout(() => r.resume(), faults.holdMs);
        }
      });
      r.on('end', () => res.end());
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
    res.on('close', () => up.destroy());
  });
  return new Promise((resolve) => srv.listen(0, '127.0.0.1', () => {
    srv.closeAllConnections();
    resolve({ url: `http://127.0.0.1:${srv.address().port}/`, faults, close: () => { srv.closeAllConnections(); srv.close(); } });
  }));
}

/** Records every status the live bar shows, with the revisions shown then, in the page. */
async function recordStatuses(page) {
  await page.evaluate(() => {
    window.statuses_ = [];
    const el = document.querySelector('spate-planner');
    const note = () => {
      const bar = el.shadowRoot.querySelector('.live-bar');
      const s = bar?.dataset.status;
      const last = window.statuses_[window.statuses_.length - 1];
      const rows = el.shadowRoot.querySelectorAll('.live-events .event[data-kind="resync"]').length;
      if (s && (!last || last.s !== s || last.rows !== rows)) window.statuses_.push({ s, rows, t: performance.now(), text: bar.textContent });
    };
    new MutationObserver(note).observe(el.shadowRoot, { subtree: true, attributes: true, childList: true, characterData: true });
    note();
  });
}

function barIs(page, status, what) {
  return page.waitForFunction((s) => document.querySelector('spate-planner')?.shadowRoot?.querySelector('.live-bar')?.dataset.status === s, status, { timeout: PATIENCE, polling: 20 })
    .catch(async (e) => {
      const text = await page.evaluate(() => document.querySelector('spate-planner')?.shadowRoot?.querySelector('.live-bar')?.textContent);
      throw new Error(`${what}: the bar never said ${status} (${e.message.split('\n')[0]}); it says: ${text}`);
    });
}

test('a refused live start is tried again with backoff, the bar saying so, until the page is live', async () => {
  const front = await proxy(server.url);
  front.faults.refuse = 4;
  const { page, problems } = await watchedPage(chrome.browser, { width: 1200, height: 900 });
  const t0 = Date.now();
  await page.goto(`${front.url}?job=${JOB}`);
  await barIs(page, 'error', 'a refused start');
  const said = await page.locator('.live-bar').textContent();
  assert.match(said, /refused: 4 full states are being sent already.*trying again in \d+(\.\d+)? s/, said);
  await barIs(page, 'live', 'after the refusals');
  await ready(page, 0, PATIENCE);
  console.log(`refused ${front.faults.refused} times: live after ${Date.now() - t0} ms`);
  assert.equal(front.faults.refuse, 0, 'every refusal was met: the page tried again each time');
  assert.deepEqual(problems.filter((p) => !/503/.test(p)), []);
  await page.close();
  front.close();
});

test('a page sent the whole state again says "Catching up", never "Live", until the state is in', async () => {
  const front = await proxy(server.url);
  const { page, problems } = await watchedPage(chrome.browser, { width: 1200, height: 900 });
  await page.goto(`${front.url}?job=${JOB}`);
  await barIs(page, 'live', 'the first state');
  await ready(page, 0, PATIENCE);
  await recordStatuses(page);
  // the stream held after the server says the page catches up: the whole state comes 3 s later
  front.faults.holdAfter = '"catching_up"';
  front.faults.holdMs = 3000;
  await nats.kill();
  await barIs(page, 'reconnecting', 'NATS gone');
  await nats.restart();
  await barIs(page, 'catching_up', 'the whole state sent again');
  assert.match(await page.locator('.live-bar').textContent(), /Catching up: job faults/);
  await barIs(page, 'live', 'the whole state in');
  await page.waitForFunction(() => document.querySelector('spate-planner').shadowRoot.querySelector('.live-events .event[data-kind="resync"]'), null, { timeout: PATIENCE });
  const seen = await page.evaluate(() => window.statuses_);
  const at = seen.findIndex((x) => x.s === 'catching_up');
  const liveAgain = seen.findIndex((x, i) => i > at && x.s === 'live');
  assert.ok(at >= 0 && liveAgain > at, JSON.stringify(seen));
  const between = seen.slice(at, liveAgain).map((x) => x.s);
  assert.ok(!between.includes('live'), `live while catching up: ${between}`);
  console.log(`catching up shown for ${Math.round(seen[liveAgain].t - seen[at].t)} ms (the proxy held the state 3000 ms): ${seen.map((x) => x.s).join(' → ')}`);
  assert.equal(front.faults.held, 1);
  assert.deepEqual(problems, []);
  await page.close();
  front.close();
});

test('a store that stops answering (nats-server stopped) turns the bar to Stale with why, and back to Live', async () => {
  const { page, problems } = await watchedPage(chrome.browser, { width: 1200, height: 900 });
  await page.goto(`${server.url}?job=${JOB}`);
  await barIs(page, 'live', 'the first state');
  await ready(page, 0, PATIENCE);
  const pid = nats.child.pid;
  const t0 = Date.now();
  process.kill(pid, 'SIGSTOP');
  try {
    await barIs(page, 'silent', 'the store stopped');
    const took = Date.now() - t0;
    const said = await page.locator('.live-bar').textContent();
    assert.match(said, /Stale: job faults/, said);
    assert.match(said, /the store has not been heard from for \d+ s \(bound 3 s\); last confirmed at revisions \d+-\d+/, said);
    console.log(`nats-server stopped: the page said Stale after ${took} ms (bound ${STALE_AFTER_S} s): ${said}`);
  } finally {
    process.kill(pid, 'SIGCONT');
  }
  await barIs(page, 'live', 'the store answering again');
  assert.deepEqual(problems, []);
  await page.close();
});

test('a recording that stops (its directory removed) is said on the live bar', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'spate-faults-rec-'));
  const recorded = await startServer(['--server', nats.url, '--job', JOB, '--record', join(dir, 'rec')]);
  const { page, problems } = await watchedPage(chrome.browser, { width: 1200, height: 900 });
  try {
    await page.goto(recorded.url);
    await barIs(page, 'live', 'the first state');
    await ready(page, 0, PATIENCE);
    assert.equal(await page.evaluate(() => document.querySelector('spate-planner').shadowRoot.querySelector('.live-bar').dataset.recording), '');
    await rm(join(dir, 'rec'), { recursive: true, force: true });
    await page.waitForFunction(() => document.querySelector('spate-planner')?.shadowRoot?.querySelector('.live-bar')?.dataset.recording === 'stopped', null, { timeout: PATIENCE, polling: 50 });
    const said = await page.locator('.live-bar').textContent();
    assert.match(said, /Live: job faults/, said);
    assert.match(said, /the recording of job faults stopped: .*rec.* was removed/, said);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
    recorded.stop();
    await rm(dir, { recursive: true, force: true });
  }
});
