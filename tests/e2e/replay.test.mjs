// The incident replayed (issue 21) in Chromium: `serve --server … --record DIR` records a real
// NATS job while a fixture writer changes it; `spate-planner replay DIR` serves the page, whose
// Live tab covers the recorded time. Scrubbing to a revision live mode served shows the plan
// live mode showed (`spate-planner plan` of what `/api/snapshot` served then, taken at the same
// instant), and Save snapshot there is `replay --revision … -o`. A recording segment opened with
// the file picker replays too. No console error, no CSP violation, no axe-core violation.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile, readdir, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { startServer, startCommand, launch, watchedPage, ready, cli, axeViolations, outputDir } from './browser.mjs';
import { startNats, writeDemoJob, jobWriter } from './live-fixture.mjs';

const JOB = 'orders';
let chrome;
let nats;
let recording;
/** What live mode served while it recorded: [{ revisions, text }]. */
const served = [];
/** The member whose presence the writer purged last (a crash, as NATS reports a lapse). */
let crashed;

async function serveNow(url) {
  const r = await fetch(new URL(`api/snapshot?job=${JOB}`, url));
  assert.equal(r.status, 200);
  return { revisions: r.headers.get('x-spate-revisions'), text: await r.text() };
}

before(async () => {
  nats = await startNats();
  await writeDemoJob(nats, JOB, { splits: 60, members: 4, leaseTtlMs: 3600000 });
  const writer = await jobWriter(nats, JOB);
  recording = join(nats.dir, 'recording');
  const server = await startServer(['--server', nats.url, '--job', JOB, '--record', recording]);
  try {
    served.push(await serveNow(server.url));
    const leases = Object.entries(await writer.values('lease', 'split.'));
    crashed = Object.keys(await writer.values('lease', 'worker.')).sort()[0].slice('worker.'.length);
    const changes = [
      () => writer.put('lease', 'worker.w-new', '{"schema":3,"nonce":"n-new","max_in_flight":3}'),
      ...leases.slice(0, 4).map(([key, text]) => () => writer.put('lease', key, text.replace(/"epoch":\d+/, '"epoch":9'))),
      () => writer.put('lease', 'worker.w-new', '{"schema":3,"nonce":"n-new","max_in_flight":5}'),
      () => writer.delete('lease', leases[leases.length - 1][0]),
      () => writer.purge('lease', `worker.${crashed}`),
    ];
    for (const change of changes) {
      await change();
      await new Promise((r) => setTimeout(r, 150));
      const now = await serveNow(server.url);
      if (now.revisions !== served[served.length - 1].revisions) served.push(now);
    }
  } finally {
    server.stop();
    await writer.close();
  }
  chrome = await launch();
});
after(async () => {
  await chrome?.close();
  await nats?.stop();
});

const normal = (text) => text.trim().replace(/^(\{"format":"[^"]*","job":"[^"]*","taken_at_ms":)"\d+"/, '$1"T"');

/**
 * Moves the replay to each moment in turn (as a pick on the Live tab's chart does: the slider
 * steps by changes only) until the page shows `revisions`; the moment's index.
 */
async function scrubTo(page, revisions) {
  const max = await page.evaluate(() => document.querySelector('spate-planner').controller.state.live.replay.moments - 1);
  for (let m = 0; m <= max; m++) {
    await page.evaluate((k) => document.querySelector('spate-planner').controller.live.seek(k), m);
    await page.waitForFunction((want) => {
      const el = document.querySelector('spate-planner');
      const live = el.controller.state.live;
      return live.moment === want && !el.controller.live.inflight;
    }, m, { timeout: 10000 });
    if (await page.getAttribute('spate-planner', 'data-revisions') === revisions) return m;
  }
  throw new Error(`no moment at revisions ${revisions}`);
}

test('a recording replays: scrubbing to each revision live mode served shows its plan, and Save snapshot is the export', async () => {
  assert.ok(served.length >= 4, `the writer moved the job (${served.length} states served)`);
  const server = await startCommand('replay', [recording]);
  try {
    const { page, problems } = await watchedPage(chrome.browser);
    await page.goto(server.url);
    await ready(page, 0, 20000);
    assert.match(await page.locator('.live-bar').textContent(), /Replay: job orders.*change 1 of \d+ \(moment 1 of \d+\)/);
    assert.equal(await page.locator('.tab[data-tab="live"]').getAttribute('aria-selected'), 'true');
    assert.ok(await page.locator('.live-events .event').count() > 0, 'the timeline of the recorded time');
    assert.match(await page.locator('.live-events').first().textContent(), /member joined: w-new/);
    for (const { revisions, text } of served) {
      await scrubTo(page, revisions);
      const file = join(nats.dir, 'at.json');
      const ex = await cli(['replay', recording, '--revision', revisions, '-o', file]);
      assert.equal(ex.status, 0, ex.stderr);
      const exported = await readFile(file, 'utf8');
      const [download] = await Promise.all([page.waitForEvent('download'), page.locator('.live-bar button', { hasText: 'Save snapshot' }).click()]);
      assert.equal(await readFile(await download.path(), 'utf8'), exported, `Save snapshot at ${revisions} is replay --revision -o`);
      // what live mode served then, planned at the moment's instant
      const taken = exported.match(/"taken_at_ms": (\d+)/)[1];
      const then = join(nats.dir, 'served.json');
      await writeFile(then, text.replace(/"taken_at_ms": \d+/, `"taken_at_ms": ${taken}`));
      const plan = await cli(['plan', then, '--json']);
      assert.equal(plan.status, 0, plan.stderr);
      const shown = await page.evaluate(() => document.querySelector('spate-planner').controller.ask('planJson'));
      assert.equal(normal(shown), normal(plan.stdout), `the page's plan at ${revisions} is the plan of what live mode served`);
    }
    // a pick on the chart moves the replay too
    await page.locator('.live-panels svg').first().click({ position: { x: 2, y: 10 } });
    await page.waitForFunction(() => document.querySelector('spate-planner').controller.state.live.moment === 0, null, { timeout: 10000 });
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(problems, []);
    await page.close();
  } finally {
    server.stop();
  }
});

test('a recording segment opened with the file picker replays', async () => {
  const server = await startServer([]);
  try {
    const { page, problems } = await watchedPage(chrome.browser);
    await page.goto(server.url);
    const plans = await ready(page);
    const segment = join(recording, (await readdir(recording)).find((f) => f.endsWith('.jsonl')));
    await page.locator('input[type=file]').setInputFiles(segment);
    await ready(page, plans, 20000);
    assert.match(await page.locator('.live-bar').textContent(), /Replay: job orders/);
    const last = served[served.length - 1];
    const slider = page.locator('.replay-scrub input[type=range]');
    await slider.focus();
    await page.keyboard.press('End');
    try {
      await page.waitForFunction((r) => document.querySelector('spate-planner').dataset.revisions === r, last.revisions, { timeout: 10000 });
    } catch (e) {
      const now = await page.evaluate(() => { const el = document.querySelector('spate-planner'); return { r: el.dataset.revisions, m: el.controller.state.live.moment, n: el.controller.state.live.replay.moments }; });
      throw new Error(`${e.message}: the page shows ${JSON.stringify(now)}, want ${last.revisions}`);
    }
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(problems, []);
    await page.close();
  } finally {
    server.stop();
  }
});

/** The on-call card's parts as the page shows them (null: no card). */
function card(page) {
  return page.evaluate(() => {
    const root = document.querySelector('spate-planner').shadowRoot;
    const c = root.querySelector('.incidents:not([hidden]) .incident');
    if (!c) return null;
    const earlier = root.querySelector('.incidents-earlier:not([hidden])');
    return {
      kind: c.dataset.kind,
      phase: c.dataset.phase,
      title: c.querySelector('.incident-what').textContent,
      ago: c.querySelector('.incident-ago').textContent,
      leader: c.querySelector('.incident-leader').textContent,
      earlier: earlier ? earlier.querySelector('summary').textContent : null,
      earlierItems: earlier ? [...earlier.querySelectorAll('li')].map((li) => li.textContent) : [],
    };
  });
}

test('a recording replays its incidents: each moment shows the card as it stood then, moving back too', async () => {
  const server = await startCommand('replay', [recording]);
  try {
    const { page, problems } = await watchedPage(chrome.browser);
    await page.goto(server.url);
    await ready(page, 0, 20000);
    assert.equal(await card(page), null, 'nothing has happened at the first moment');
    const slider = page.locator('.replay-scrub input[type=range]');
    const last = await page.evaluate(() => document.querySelector('spate-planner').controller.state.live.replay.moments - 1);
    await slider.focus();
    await page.keyboard.press('End');
    await page.waitForFunction((m) => {
      const el = document.querySelector('spate-planner');
      return el.controller.state.live.moment === m && !el.controller.live.inflight;
    }, last, { timeout: 20000 });
    const c = await card(page);
    assert.ok(c, 'the crash\'s card at the last moment');
    assert.equal(c.kind, 'crashed');
    assert.equal(c.title, `${crashed} crashed`);
    // the window counted from the store's time of the purge (timing.md §5.3: T + 20 s at the
    // earliest, T + 50 s at the latest on 0.1), written at the moment's recorded time, within it
    assert.equal(c.phase, 'withheld');
    const at = c.ago.match(/(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) UTC/)[1];
    const plus = (secs) => `${new Date(new Date(`${at.replace(' ', 'T')}Z`).getTime() + secs * 1000).toISOString().slice(11, 19)} UTC`;
    assert.ok(c.leader.includes(`until ${plus(20)} at the earliest`), c.leader);
    assert.ok(c.leader.includes(`and ${plus(50)} at the latest`), c.leader);
    // the join and the cap change recorded before it are listed under it, newest first
    assert.equal(c.earlier, '2 earlier incidents in the recording up to this moment');
    assert.ok(c.earlierItems[0].includes("w-new's cap changed"), JSON.stringify(c.earlierItems));
    assert.ok(c.earlierItems[1].includes('w-new joined'), JSON.stringify(c.earlierItems));
    await mkdir(outputDir, { recursive: true });
    await page.screenshot({ path: join(outputDir, 'replay-incident-1400.png') });
    // back to the moment after the join: the card as it stood then
    const moment = await page.evaluate(() => {
      const rows = document.querySelector('spate-planner').controller.state.live.rows;
      return rows.find((r) => r.text === 'member joined: w-new').id;
    });
    await slider.fill(String(await page.evaluate((m) => document.querySelector('spate-planner').controller.state.live.replay.steps.indexOf(m), moment)));
    await page.waitForFunction((m) => {
      const el = document.querySelector('spate-planner');
      return el.controller.state.live.moment === m && !el.controller.live.inflight;
    }, moment, { timeout: 20000 });
    const back = await card(page);
    assert.equal(back.title, 'w-new joined');
    assert.equal(back.earlier, null, 'nothing before the join');
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(problems, []);
    await page.close();
  } finally {
    server.stop();
  }
});

test('the replay bar steps by change: the lease renewals are folded, ◀ and ▶ go from one change to the next', async () => {
  const server = await startCommand('replay', [recording]);
  try {
    const { page, problems } = await watchedPage(chrome.browser);
    await page.goto(server.url);
    await ready(page, 0, 20000);
    const replay = await page.evaluate(() => document.querySelector('spate-planner').controller.state.live.replay);
    // the steps are the moments the timeline has a row for (a join, a cap, a leave, a claim, a
    // publish, a status: every moment of this short recording is sampled, so each row is its
    // own line's), with the first and the last; the writer's split leases re-written with the
    // same owner (renewals: no row) are folded
    const rows = await page.evaluate(() => document.querySelector('spate-planner').controller.state.live.rows.map((r) => r.id));
    assert.equal(replay.moments <= 240, true, 'every moment sampled');
    const want = [...new Set([0, ...rows, replay.moments - 1])].sort((a, b) => a - b);
    assert.deepEqual(replay.steps, want);
    assert.ok(replay.steps.length < replay.moments, `the renewals are folded: ${replay.steps.length} steps of ${replay.moments} moments`);
    const slider = page.locator('.replay-scrub input[type=range]');
    assert.equal(Number(await slider.getAttribute('max')), replay.steps.length - 1);
    const shown = () => page.evaluate(() => {
      const el = document.querySelector('spate-planner');
      return el.controller.live.inflight ? null : el.controller.state.live.moment;
    });
    const next = page.locator('.replay-scrub button[aria-label="the change after"]');
    for (const want of replay.steps.slice(1)) {
      await next.click();
      await page.waitForFunction((m) => {
        const el = document.querySelector('spate-planner');
        return el.controller.state.live.moment === m && !el.controller.live.inflight;
      }, want, { timeout: 10000 });
    }
    assert.equal(await shown(), replay.moments - 1);
    assert.equal(await next.getAttribute('aria-disabled'), 'true');
    assert.match(await page.locator('.live-bar').textContent(), new RegExp(`change ${replay.steps.length} of ${replay.steps.length} \\(moment ${replay.moments} of ${replay.moments}\\)`));
    // ◀ with the keyboard: one change back, focus kept on the button
    await page.locator('.replay-scrub button[aria-label="the change before"]').focus();
    await page.keyboard.press('Enter');
    const before = replay.steps[replay.steps.length - 2];
    await page.waitForFunction((m) => document.querySelector('spate-planner').controller.state.live.moment === m, before, { timeout: 10000 });
    assert.equal(await page.evaluate(() => document.querySelector('spate-planner').shadowRoot.activeElement?.getAttribute('aria-label')), 'the change before');
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(problems, []);
    await page.close();
  } finally {
    server.stop();
  }
});
