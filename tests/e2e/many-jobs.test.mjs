// Many jobs per server (issue 34) in Chromium: `serve --server --max-jobs 2` on a real
// nats-server with three jobs. The page lists the three with what the server says of each
// (followed or why not, status, members, splits, at risk), as text; a job past the cap is still
// opened when picked. No console error, no CSP violation, no axe-core violation.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, watchedPage, ready, axeViolations } from './browser.mjs';
import { startNats, writeDemoJob } from './live-fixture.mjs';

const JOBS = ['alpha', 'beta', 'gamma'];
/** The longest wait for what must happen: only a hang ends it, never a busy machine. */
const PATIENCE = 120000;
let chrome;
let nats;
let server;

/** The server's JSON at `path`. */
async function json(path) {
  const r = await fetch(new URL(path, server.url));
  return r.json();
}

before(async () => {
  nats = await startNats();
  for (const job of JOBS) await writeDemoJob(nats, job, { splits: 40, members: 3 });
  server = await startServer(['--server', nats.url, '--max-jobs', '2']);
  // until both jobs under the cap are read, and a scrape has planned them (the at-risk count)
  const start = Date.now();
  while ((await json('healthz')).jobs_followed !== 2) {
    if (Date.now() - start > PATIENCE) throw new Error('the jobs were not followed');
    await new Promise((r) => setTimeout(r, 100));
  }
  await fetch(new URL('metrics', server.url));
  chrome = await launch();
});
after(async () => {
  await chrome?.close();
  server?.stop();
  await nats?.stop();
});

/** The job list's rows as the page shows them: { cells: [text…], followed } by job. */
function rows(page) {
  return page.locator('.live-jobs tbody tr').evaluateAll((trs) => Object.fromEntries(trs.map((tr) => {
    const cells = [...tr.cells].map((c) => c.textContent);
    return [cells[0], { cells, followed: tr.dataset.followed }];
  })));
}

test('the job list says which jobs are followed, their state, and why one is not', async () => {
  const { page, problems } = await watchedPage(chrome.browser, { width: 1400, height: 900 });
  await page.goto(server.url);
  await page.locator('.live-jobs a[data-job="gamma"]').waitFor({ timeout: PATIENCE });
  const headers = await page.locator('.live-jobs thead th').allTextContents();
  assert.deepEqual(headers, ['job', 'followed', 'status', 'members', 'splits', 'at risk', 'state bucket', 'lease bucket']);
  const list = await json('api/jobs');
  const shown = await rows(page);
  assert.deepEqual(Object.keys(shown), JOBS);
  for (const job of ['alpha', 'beta']) {
    const served = list.jobs.find((j) => j.job === job);
    const [, followed, status, members, splits, atRisk] = shown[job].cells;
    assert.equal(shown[job].followed, 'true', job);
    assert.deepEqual([followed, status], ['yes', 'live'], job);
    assert.equal(members, '3', job);
    assert.equal(splits, String(served.splits), job);
    assert.ok(served.splits >= 40, `${job}: ${served.splits} splits`);
    assert.equal(typeof served.at_risk, 'number', `${job}: planned by the scrape`);
    assert.equal(atRisk, String(served.at_risk), job);
  }
  const [, why, status, members, splits, atRisk] = shown.gamma.cells;
  assert.equal(shown.gamma.followed, 'false');
  assert.match(why, /^not followed: 2 jobs are followed already \(serve --max-jobs\)/);
  assert.deepEqual([status, members, splits, atRisk], ['not held', '—', '—', '—']);
  // every cell is text: the server's words never become markup
  assert.equal(await page.locator('.live-jobs tbody td *:not(a)').count(), 0);
  assert.deepEqual(await axeViolations(page), []);

  // a job past the cap opens when picked (the server reads it on demand)
  await page.locator('.live-jobs a[data-job="gamma"]').click();
  await ready(page, 0, PATIENCE);
  assert.equal(new URL(page.url()).searchParams.get('job'), 'gamma');
  assert.match(await page.locator('.live-bar').textContent(), /Live: job gamma/);
  const gamma = (await json('api/jobs')).jobs.find((j) => j.job === 'gamma');
  assert.deepEqual([gamma.followed, gamma.status], [false, 'live']);
  assert.deepEqual(problems, []);
  await page.close();
});

test('the job link that has the keyboard focus keeps it when the list is read again, which shows the new figures', async () => {
  const { page, problems } = await watchedPage(chrome.browser, { width: 1400, height: 900 });
  await page.goto(server.url);
  const beta = page.locator('.live-jobs a[data-job="beta"]');
  await beta.waitFor({ timeout: PATIENCE });
  await beta.evaluate((a) => { a.focus(); window.__focused = a; });
  // the server's list read again (as when the element is pointed at the server anew): new
  // objects for the same jobs, one of them with more splits
  await page.evaluate(() => {
    const c = document.querySelector('spate-planner').controller;
    const live = c.state.live;
    c.store.update({ live: { ...live, jobs: live.jobs.map((j) => ({ ...j, splits: j.job === 'beta' ? 4321 : j.splits })) } });
  });
  assert.equal((await rows(page)).beta.cells[4], '4,321');
  assert.equal(await page.evaluate(() => document.querySelector('spate-planner').shadowRoot.activeElement === window.__focused), true);
  assert.deepEqual(Object.keys(await rows(page)), JOBS);
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems, []);
  await page.close();
});
