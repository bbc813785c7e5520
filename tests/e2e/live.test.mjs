// The live page (issue 9) against a real nats-server and the real `serve --server`, in Chromium:
// a fixture writer changes a running job while the page is open; each change shows (how soon:
// scripts/bench-live-page), and then the page's plan is `spate-planner plan` of a snapshot exported at the same
// revisions and "Save snapshot" is that export. NATS is killed and restarted, flooded, and a
// bucket deleted; no console error, no CSP violation, no axe-core violation.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startServer, launch, watchedPage, ready, cli, axeViolations, inView } from './browser.mjs';
import { startNats, writeDemoJob, jobWriter } from './live-fixture.mjs';

const JOB = 'orders';
/** The longest wait for what must happen: only a hang ends it, never a busy machine. */
const PATIENCE = 120000;
let chrome;
let nats;
let writer;
let server;

before(async () => {
  nats = await startNats();
  await writeDemoJob(nats, JOB);
  writer = await jobWriter(nats, JOB);
  server = await startServer(['--server', nats.url]);
  chrome = await launch();
});
after(async () => {
  await chrome?.close();
  server?.stop();
  await writer?.close();
  await nats?.stop();
});

const host = 'spate-planner';

/** Polls `fn` in the page until it returns a truthy value; fails after `ms` with `what`. */
async function poll(page, fn, arg, ms, what) {
  try {
    const h = await page.waitForFunction(fn, arg, { timeout: ms, polling: 20 });
    return h.jsonValue();
  } catch (e) {
    const live = await page.evaluate(() => {
      const s = document.querySelector('spate-planner').controller.state.live;
      return s && { conn: s.conn, revisions: s.revisions, rows: s.rows.slice(0, 5).map((r) => r.text) };
    });
    throw new Error(`${what}: not within ${ms} ms (${e.message.split('\n')[0]}); live: ${JSON.stringify(live)}`);
  }
}

/** Waits until the page shows a timeline row of `kind` whose text has `text`, and the bucket at `rev`. */
function shows(page, kind, text, bucket, rev, ms = PATIENCE) {
  return poll(page, ([k, t, b, r]) => {
    const el = document.querySelector('spate-planner');
    const rows = [...el.shadowRoot.querySelectorAll(`.live-events .event[data-kind="${k}"] .what`)].map((n) => n.textContent);
    const [s, l] = (el.dataset.revisions || '0-0').split('-').map(Number);
    return rows.some((x) => x.includes(t)) && (b === 'state' ? s : l) >= r;
  }, [kind, text, bucket, rev], ms, `the page to show "${kind}: ${text}" at ${bucket} revision ${rev}`);
}

/** The state shown equals an export taken now, and the page's plan equals the CLI's plan of it. */
async function agrees(page, what) {
  const file = join(nats.dir, 'export.json');
  const ex = await cli(['snapshot', '--server', nats.url, '--job', JOB, '-o', file]);
  assert.equal(ex.status, 0, ex.stderr);
  const exported = await readFile(file, 'utf8');
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('.live-bar button', { hasText: 'Save snapshot' }).click()]);
  const saved = await readFile(await download.path(), 'utf8');
  const body = (text) => text.split('\n').filter((l) => !/^ {2}"(source|taken_at_ms)":/.test(l)).join('\n');
  assert.equal(body(saved), body(exported), `${what}: "Save snapshot" is not the export`);
  assert.match(download.suggestedFilename(), new RegExp(`^${JOB}-\\d+-\\d+\\.json$`));
  const plan = await cli(['plan', file, '--json']);
  assert.equal(plan.status, 0, plan.stderr);
  const shown = await page.evaluate(() => document.querySelector('spate-planner').controller.ask('planJson'));
  const at = (text) => text.trim().replace(/^(\{"format":"[^"]*","job":"[^"]*","taken_at_ms":)"\d+"/, '$1"T"');
  assert.equal(at(shown), at(plan.stdout), `${what}: the page's plan is not spate-planner plan of the export`);
}

/** Renews every lease-bucket key (presences, the leader, split leases), as running workers do. */
async function heartbeat() {
  // right after a restart JetStream may not answer yet: try again for a few seconds
  for (let i = 0; ; i++) {
    try {
      return await renew();
    } catch (e) {
      if (i >= 20) throw e;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

async function renew() {
  const values = { ...(await writer.values('lease', 'worker.')), ...(await writer.values('lease', 'split.')) };
  values.leader = Object.values(await writer.values('lease', 'leader'))[0];
  let last = 0;
  for (const [key, text] of Object.entries(values)) if (text) last = await writer.put('lease', key, text);
  return last;
}

/** What the page's element says of each frame, recorded in the page. */
async function recordFrames(page) {
  await page.evaluate(() => {
    window.frames_ = [];
    document.querySelector('spate-planner').addEventListener('plan-change', () => {
      const s = document.querySelector('spate-planner').controller.state;
      window.frames_.push({ revisions: s.live.revisions, members: s.info.members.map((m) => m.name).join(','), planned: s.result.view.report.members.map((m) => m.name).join(',') });
    });
  });
}

test('a running job changes under the page: each change shows, and the plan is the CLI\'s', async () => {
  const { page, problems } = await watchedPage(chrome.browser);
  await page.goto(`${server.url}?job=${JOB}`);
  await ready(page, 0, PATIENCE);
  assert.match(await page.locator('.live-bar').textContent(), /Live: job orders.*revisions \d+-\d+/);
  assert.equal(await page.locator('.tab[data-tab="live"]').getAttribute('aria-selected'), 'true');
  await agrees(page, 'the first state');

  const progress = Object.entries(await writer.values('state', 'split.')).find(([, v]) => v.includes('"status":"runnable"'));
  const [splitKey, splitValue] = progress;
  const split = splitKey.slice('split.'.length);
  const steps = [
    ['a member joins', 'joined', 'w-e', () => writer.put('lease', 'worker.w-e', '{"schema":3,"nonce":"ne","max_in_flight":3}'), 'lease'],
    ['a member leaves', 'left', 'worker-01', () => writer.delete('lease', 'worker.worker-01'), 'lease'],
    ['a cap changes', 'cap', 'worker-02 cap 160 → cap 6', () => writer.put('lease', 'worker.worker-02', '{"max_in_flight":6,"nonce":"n-worker-02","schema":3}'), 'lease'],
    ['a split completes', 'completed', split, () => writer.put('state', splitKey, splitValue.replace('"status":"runnable"', '"status":"completed"').replace('"completed":false', '"completed":true')), 'state'],
    ['an assignment is published', 'published', 'w-e', () => writer.put('state', 'assign.w-e', '{"generation":4,"schema":3,"splits":["part-000003"]}'), 'state'],
  ];
  for (const [what, kind, text, write, bucket] of steps) {
    const rev = await write();
    await shows(page, kind, text, bucket, rev);
    await agrees(page, what);
  }
  assert.match(await page.locator('.live-series[data-series="members"] .series-value').textContent(), /^4$/);

  // the plan as it was when w-e joined (5 members then), picked with the slider; the first
  // moment (4 members, before any change), picked with a click on the chart
  const then = () => page.locator('.live-then');
  const at = await page.evaluate(() => {
    const s = document.querySelector('spate-planner').controller.state.live;
    const id = s.rows.find((r) => r.kind === 'joined' && r.text.includes('w-e')).id;
    return s.points.findIndex((p) => p.id === id);
  });
  await page.locator('input[aria-label="moment whose plan is shown"]').fill(String(at));
  await poll(page, () => /^The plan at/.test(document.querySelector('spate-planner').shadowRoot.querySelector('.live-then h3').textContent), null, PATIENCE, 'the plan of the moment picked');
  assert.match(await then().textContent(), /Then: member joined: w-e\./);
  assert.equal((await then().locator('tr[data-figure="members"] td').textContent()).trim(), '5');
  assert.equal(await page.locator('.live-series[data-series="members"] .series-value').textContent(), '5');
  const box = await page.locator('.live-series[data-series="members"] svg').boundingBox();
  await page.mouse.click(box.x + 1, box.y + box.height / 2);
  await poll(page, () => /^The plan at/.test(document.querySelector('spate-planner').shadowRoot.querySelector('.live-then h3').textContent)
    && document.querySelector('spate-planner').shadowRoot.querySelector('.live-then tr[data-figure="members"] td').textContent === '4', null, PATIENCE, 'the first moment\'s plan');
  assert.equal(await then().locator('table.data tbody tr').count(), 4);
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems, []);
  await page.close();
});

test('pause freezes the view, changes show on resume; a what-if applies on top of the live state', async () => {
  const { page, problems } = await watchedPage(chrome.browser, { width: 800, height: 1000, theme: 'dark' });
  await page.goto(`${server.url}?job=${JOB}`);
  await ready(page, 0, PATIENCE);
  await page.locator('.live-bar button', { hasText: 'Pause' }).click();
  const before = await page.getAttribute(host, 'data-revisions');
  const rev = await writer.put('lease', 'worker.w-p', '{"schema":3,"nonce":"np","max_in_flight":2}');
  await poll(page, () => /1 change waiting/.test(document.querySelector('spate-planner').shadowRoot.querySelector('.live-bar').textContent), null, PATIENCE, 'the bar to count the change waiting');
  // a presence renewed with the same value is no change to wait for; another join is
  const [renewKey, renewValue] = Object.entries(await writer.values('lease', 'worker.'))[0];
  await writer.put('lease', renewKey, renewValue);
  await writer.put('lease', 'worker.w-p2', '{"schema":3,"nonce":"np2","max_in_flight":2}');
  await poll(page, () => /2 changes waiting/.test(document.querySelector('spate-planner').shadowRoot.querySelector('.live-bar').textContent), null, PATIENCE, 'the bar to count the second join');
  await page.waitForTimeout(1500);
  assert.match(await page.locator('.live-bar').textContent(), /2 changes waiting/, 'the renewal is not counted');
  assert.equal(await page.getAttribute(host, 'data-revisions'), before, 'a paused view moved');
  assert.match(await page.locator('.live-bar').textContent(), /Paused: job orders/);
  await page.locator('.live-bar button', { hasText: 'Resume' }).click();
  await shows(page, 'joined', 'w-p', 'lease', rev);

  // a what-if member, then a live change: the plan keeps the what-if, on the new state
  await page.locator('.drawer-toggle').click();
  await page.locator('form[data-form="add"] [aria-label="new member name"]').fill('w-whatif');
  await page.locator('form[data-form="add"] button[type=submit]').click();
  await poll(page, () => document.querySelector('spate-planner').shadowRoot.querySelector('.chart button[data-member="w-whatif"]'), null, PATIENCE, 'the what-if member in the chart');
  const rev2 = await writer.put('lease', 'worker.w-q', '{"schema":3,"nonce":"nq","max_in_flight":2}');
  await shows(page, 'joined', 'w-q', 'lease', rev2);
  const members = await page.evaluate(() => document.querySelector('spate-planner').controller.state.result.view.report.members.map((m) => m.name));
  assert.ok(members.includes('w-whatif') && members.includes('w-q'), members.join(','));
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a snapshot that cannot be loaded while a job is followed: the message says so, and following goes on', async () => {
  const { page, problems } = await watchedPage(chrome.browser);
  await page.goto(`${server.url}?job=${JOB}`);
  await ready(page, 0, PATIENCE);
  const loaded = await page.evaluate(() => document.querySelector('spate-planner').controller.loadText('{"format": "not a snapshot"'));
  assert.equal(loaded, false);
  const state = () => page.evaluate(() => {
    const s = document.querySelector('spate-planner').controller.state;
    return { title: s.message?.title, source: s.source.kind, live: s.live?.job, conn: s.live?.conn };
  });
  assert.deepEqual(await state(), { title: 'pasted could not be loaded; the live job is still followed', source: 'live', live: JOB, conn: 'live' });
  assert.match(await page.locator('.message').textContent(), /could not be loaded; the live job is still followed/);
  assert.match(await page.locator('.live-bar').textContent(), /Live: job orders/);
  // a change after it shows: the job is followed still
  const rev = await writer.put('lease', 'worker.w-after', '{"schema":3,"nonce":"na","max_in_flight":2}');
  await shows(page, 'joined', 'w-after', 'lease', rev);
  assert.deepEqual(problems, []);
  await page.close();
});

test('NATS killed and restarted: reconnecting, then live again without a reload or a wrong plan; a flood is coalesced and bounded', async () => {
  const { page, problems } = await watchedPage(chrome.browser, { width: 1200, height: 900 });
  await page.goto(`${server.url}?job=${JOB}`);
  await ready(page, 0, PATIENCE);
  await heartbeat();
  const settled = await page.getAttribute(host, 'data-revisions');
  await recordFrames(page);
  await page.evaluate(() => { window.notReloaded = true; });
  const fleet = await page.evaluate(() => document.querySelector('spate-planner').controller.state.info.members.map((m) => m.name).join(','));

  // scrolled down to the tables: the live status is in the sticky strip, above the figures it dates
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  await nats.kill();
  await poll(page, () => document.querySelector('spate-planner').shadowRoot.querySelector('.live-bar')?.dataset.status === 'reconnecting', null, PATIENCE, 'the bar to say reconnecting');
  assert.match(await page.locator('.live-bar').textContent(), /Reconnecting: job orders/);
  assert.ok(await page.evaluate(() => window.scrollY > 300), 'the page stays scrolled');
  assert.ok(await inView(page, '.live-bar'), 'the reconnecting status is in view, in the sticky strip');
  assert.equal(await page.locator('.top .live-bar').count(), 1);
  await nats.restart();
  await poll(page, () => document.querySelector('spate-planner').shadowRoot.querySelector('.live-bar')?.dataset.status === 'live', null, PATIENCE, 'the bar to say live again');
  await poll(page, () => document.querySelector('spate-planner').shadowRoot.querySelector('.live-events .event[data-kind="resync"]'), null, PATIENCE, 'the full state read again');
  assert.equal(await page.evaluate(() => window.notReloaded), true);
  const frames = await page.evaluate(() => window.frames_);
  for (const f of frames) {
    assert.equal(f.members, fleet, `a frame at ${f.revisions} showed another fleet`);
    assert.equal(f.planned, fleet, `a frame at ${f.revisions} planned another fleet`);
  }
  assert.ok(settled, 'no revisions before the restart');

  const rev = await heartbeat();
  await poll(page, (r) => Number(document.querySelector('spate-planner').dataset.revisions.split('-')[1]) >= r, rev, PATIENCE, 'the renewals after the restart');
  await agrees(page, 'after the restart');

  // a flood: 3,000 changes at once, 40 members joining and changing caps over and over
  const entries = Array.from({ length: 3000 }, (_, i) => [`worker.f-${String(i % 40).padStart(2, '0')}`, `{"schema":3,"nonce":"nf","max_in_flight":${1 + (i % 7)}}`]);
  const last = await writer.flood('lease', entries);
  await poll(page, (r) => Number(document.querySelector('spate-planner').dataset.revisions.split('-')[1]) >= r, last, PATIENCE, 'the flood applied');
  const bounds = await page.evaluate(() => {
    const s = document.querySelector('spate-planner').controller.state.live;
    return { rows: s.rows.length, points: s.points.length, history: s.history.length, members: document.querySelector('spate-planner').controller.state.info.members.length };
  });
  assert.ok(bounds.rows <= 400 && bounds.points <= 480 && bounds.history <= 40, JSON.stringify(bounds));
  await agrees(page, 'after the flood');
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems, []);
  await page.close();
});

test('<spate-planner live> in a console: without a job it lists the jobs, a pick sets its job attribute and it follows the job', async () => {
  const { page, problems } = await watchedPage(chrome.browser, { width: 1280, height: 900 });
  await page.goto(`${server.url}embed-example.html`);
  await ready(page, 0, PATIENCE);
  await page.evaluate(() => {
    const el = document.getElementById('embedded');
    el.removeAttribute('default-cap');
    el.setAttribute('live', '/api/live');
  });
  const link = page.locator('#embedded .live-jobs a[data-job="orders"]');
  await link.waitFor();
  const plans = Number(await page.getAttribute('#embedded', 'data-plans'));
  await link.click();
  assert.equal(await page.getAttribute('#embedded', 'job'), JOB);
  assert.equal(new URL(page.url()).search, '', 'the console\'s address changed');
  await ready(page, plans, PATIENCE);
  await page.evaluate(() => document.getElementById('embedded').addEventListener('plan-change', (e) => { window.lastDetail = e.detail; }));
  const rev = await writer.put('lease', 'worker.w-console', '{"schema":3,"nonce":"nc","max_in_flight":2}');
  const revisions = await poll(page, (r) => {
    const d = window.lastDetail;
    return d && d.job === 'orders' && Number(d.revisions.split('-')[1]) >= r && d.revisions;
  }, rev, PATIENCE, 'a plan-change of the job followed, with its revisions');
  assert.equal(await page.getAttribute('#embedded', 'data-revisions'), revisions);
  assert.match(await page.locator('#last-plan').textContent(), /splits assigned/);
  assert.match(await page.locator('#embedded .live-bar').textContent(), /Live: job orders/);
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems, []);
  await page.close();
});

test('without a job the page lists the server\'s jobs; the pick is in the URL; a deleted bucket is a clear message', async () => {
  const { page, problems } = await watchedPage(chrome.browser, { width: 390, height: 800 });
  await page.goto(server.url);
  const link = page.locator('.live-jobs a[data-job="orders"]');
  await link.waitFor();
  assert.match(await page.locator('.live-jobs').textContent(), /orders.*entries/s);
  assert.deepEqual(await axeViolations(page), []);
  await link.click();
  await ready(page, 0, PATIENCE);
  assert.equal(new URL(page.url()).searchParams.get('job'), JOB);

  await writer.deleteBucket('lease');
  await poll(page, () => /spate_coordination_orders_lease/.test(document.querySelector('spate-planner').shadowRoot.querySelector('.message')?.textContent || ''), null, PATIENCE, 'a message naming the deleted bucket');
  assert.match(await page.locator('.message').textContent(), /The live job cannot be followed now.*bucket spate_coordination_orders_lease/s);
  assert.equal(await page.locator('.live-bar').getAttribute('data-status'), 'error');
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems, []);
  await page.close();
});

test('stale: no change for longer than the lease TTL (the core\'s deadline), with the time of the last change', async () => {
  await writeDemoJob(nats, 'brief', { splits: 20, members: 2, leaseTtlMs: 1500 });
  const { page, problems } = await watchedPage(chrome.browser, { width: 1024, height: 800 });
  await page.goto(`${server.url}?job=brief`);
  await ready(page, 0, PATIENCE);
  // the presences expire (1.5 s), then nothing changes for longer than the TTL
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  await poll(page, () => document.querySelector('spate-planner').shadowRoot.querySelector('.live-bar')?.dataset.status === 'stale', null, PATIENCE, 'the bar to say stale');
  assert.match(await page.locator('.live-bar').textContent(), /Stale: job brief.*no change since \d\d:\d\d:\d\d UTC, longer than the lease TTL \(2 s\)/s);
  assert.ok(await inView(page, '.live-bar'), 'the stale status and the time of the last change are in view, scrolled as the page is');
  const brief = await jobWriter(nats, 'brief');
  const rev = await brief.put('lease', 'worker.w-back', '{"schema":3,"nonce":"nb","max_in_flight":1}');
  await brief.close();
  await shows(page, 'joined', 'w-back', 'lease', rev);
  assert.equal(await page.locator('.live-bar').getAttribute('data-status'), 'live');
  assert.deepEqual(problems, []);
  await page.close();
});
