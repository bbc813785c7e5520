// The dashboard under a reverse proxy's prefix (issue 21): `serve --base-path /planner/` in
// Chromium, with a snapshot and with a live job on a real nats-server. The page builds every URL
// relative to its own location, so each request it makes (modules, worker, wasm, snapshot, the
// live API and its event stream) stays under /planner/; the bare /planner is redirected to its
// slash. No console error, no CSP violation, no axe-core violation.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { startServer, launch, watchedPage, ready, axeViolations } from './browser.mjs';
import { startNats, writeDemoJob, jobWriter } from './live-fixture.mjs';

const JOB = 'orders';
let chrome;
let nats;
let writer;
let plain;
let live;

before(async () => {
  nats = await startNats();
  const file = await writeDemoJob(nats, JOB);
  writer = await jobWriter(nats, JOB);
  plain = await startServer([file, '--base-path', '/planner']);
  live = await startServer(['--server', nats.url, '--base-path', '/planner/']);
  chrome = await launch();
});
after(async () => {
  await chrome?.close();
  plain?.stop();
  live?.stop();
  await writer?.close();
  await nats?.stop();
});

/** The path of every request the page (and its worker) makes, in order. */
function requestPaths(page) {
  const paths = [];
  page.on('request', (r) => paths.push(new URL(r.url()).pathname));
  return paths;
}

test('a snapshot under /planner: the bare prefix redirects, and every request stays under it', async () => {
  const { page, problems } = await watchedPage(chrome.browser);
  const paths = requestPaths(page);
  await page.goto(`${plain.url}planner`);
  assert.equal(new URL(page.url()).pathname, '/planner/');
  await ready(page);
  assert.equal(await page.evaluate(() => document.querySelector('spate-planner').controller.state.info.job), JOB);
  // the page's modules as one (scripts/bundle-page.mjs), which names the worker under the prefix
  for (const want of [/^\/planner\/page\.[0-9a-f]{16}\.js$/, '/planner/worker-start.js', '/planner/worker.js', /^\/planner\/pkg\/spate_planner_bg\.[0-9a-f]{16}\.wasm$/, '/planner/snapshot.json']) {
    assert.ok(paths.some((p) => (typeof want === 'string' ? p === want : want.test(p))), `${want} not requested: ${paths.join(' ')}`);
  }
  assert.deepEqual(paths.filter((p) => !p.startsWith('/planner/') && p !== '/planner'), []);
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a live job under /planner/: picked from the list, a change shown, the snapshot saved, all through the prefix', async () => {
  const { page, problems } = await watchedPage(chrome.browser, { width: 1200, height: 900 });
  const paths = requestPaths(page);
  await page.goto(`${live.url}planner/`);
  const link = page.locator('.live-jobs a[data-job="orders"]');
  await link.waitFor();
  assert.deepEqual(await axeViolations(page), []);
  await link.click();
  await ready(page, 0, 120000);
  const url = new URL(page.url());
  assert.equal(url.pathname, '/planner/');
  assert.equal(url.searchParams.get('job'), JOB);
  assert.match(await page.locator('.live-bar').textContent(), /Live: job orders/);

  const rev = await writer.put('lease', 'worker.w-proxy', '{"schema":3,"nonce":"n-proxy","max_in_flight":2}');
  await page.waitForFunction((r) => {
    const el = document.querySelector('spate-planner');
    const rows = [...el.shadowRoot.querySelectorAll('.live-events .event[data-kind="joined"] .what')];
    return rows.some((n) => n.textContent.includes('w-proxy')) && Number((el.dataset.revisions || '0-0').split('-')[1]) >= r;
  }, rev, { timeout: 120000, polling: 20 }); // only a hang ends the wait, never a busy machine

  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('.live-bar button', { hasText: 'Save snapshot' }).click()]);
  const saved = JSON.parse(await readFile(await download.path(), 'utf8'));
  assert.equal(saved.job, JOB);
  assert.ok(saved.lease.entries.some((e) => e.key === 'worker.w-proxy'), 'the saved snapshot holds the change');

  for (const want of ['/planner/api/jobs', '/planner/api/snapshot', '/planner/api/live']) {
    assert.ok(paths.includes(want), `${want} not requested: ${paths.join(' ')}`);
  }
  assert.deepEqual(paths.filter((p) => !p.startsWith('/planner/')), []);
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems, []);
  await page.close();
});
