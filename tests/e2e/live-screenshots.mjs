#!/usr/bin/env node
// Retakes the user guide's screenshots of the live page (docs/images/live-*.png) from the built
// dashboard on a real NATS server, after a few changes a running job would make; and writes the
// same view at phone, tablet, laptop and desktop widths in both themes to tests/output/live/
// for a person to look at.
//   node tests/e2e/live-screenshots.mjs
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { startServer, launch, ready, repoRoot, outputDir } from './browser.mjs';
import { startNats, writeDemoJob, jobWriter } from './live-fixture.mjs';

const docs = join(repoRoot, 'docs/images');
const review = join(outputDir, 'live');
await mkdir(review, { recursive: true });
const nats = await startNats();
await writeDemoJob(nats, 'orders', { splits: 400, members: 12 });
const w = await jobWriter(nats, 'orders');
const server = await startServer(['--server', nats.url]);
const chrome = await launch();
const pause = (ms) => new Promise((r) => setTimeout(r, ms));

const pages = [];
async function open(width, height, theme) {
  const p = await chrome.browser.newPage({ viewport: { width, height }, colorScheme: theme });
  await p.goto(`${server.url}?job=orders`);
  await ready(p, 0, 20000);
  pages.push({ p, width, height, theme });
  return p;
}

// the picker first
{
  const p = await chrome.browser.newPage({ viewport: { width: 1280, height: 560 }, colorScheme: 'light' });
  await p.goto(server.url);
  await p.locator('.live-jobs a').first().waitFor();
  await p.screenshot({ path: join(docs, 'live-jobs.png') });
  await p.close();
}

for (const [width, height] of [[390, 844], [820, 1180], [1280, 800], [1920, 1080]]) {
  for (const theme of ['light', 'dark']) await open(width, height, theme);
}

// what a running job does: members come and go, a cap changes, splits are claimed and completed,
// the leader publishes
const split = Object.entries(await w.values('state', 'split.')).filter(([, v]) => v.includes('"status":"runnable"'));
const steps = [
  () => w.put('lease', 'worker.worker-12', '{"schema":3,"nonce":"n12","max_in_flight":64}'),
  () => w.put('lease', 'worker.worker-13', '{"schema":3,"nonce":"n13","max_in_flight":64}'),
  () => w.put('lease', 'worker.worker-02', '{"max_in_flight":32,"nonce":"n-worker-02","schema":3}'),
  () => w.delete('lease', 'worker.worker-05'),
  ...split.slice(0, 6).map(([k, v]) => () => w.put('state', k, v.replace('"status":"runnable"', '"status":"completed"').replace('"completed":false', '"completed":true'))),
  () => w.put('lease', `split.${split[7][0].slice(6)}`, '{"epoch":9,"nonce":"n12","owner":"worker-12","schema":3}'),
  () => w.put('state', 'assign.worker-12', '{"generation":4,"schema":3,"splits":["part-000003","part-000011"]}'),
  () => w.put('state', 'assign.worker-13', '{"generation":4,"schema":3,"splits":["part-000012"]}'),
];
for (const s of steps) {
  await s();
  await pause(350);
}
await pause(800);

for (const { p, width, height, theme } of pages) {
  await p.screenshot({ path: join(review, `live-${width}-${theme}.png`) });
  if (width === 1280 && theme === 'light') await p.screenshot({ path: join(docs, 'live.png') });
  // a viewport tall enough for the whole tab: no sticky strip over it
  await p.setViewportSize({ width, height: 2600 });
  await p.locator('.tabs').screenshot({ path: join(review, `live-tab-${width}-${theme}.png`) });
  await p.setViewportSize({ width, height });
  if (width === 1280 && theme === 'light') {
    await p.setViewportSize({ width, height: 2600 });
    await p.locator('.tabs').screenshot({ path: join(docs, 'live-tab.png') });
    await p.locator('input[aria-label="moment whose plan is shown"]').fill('2');
    await p.locator('input[aria-label="moment whose plan is shown"]').blur(); // (no focus ring in the picture)
    await pause(200);
    await p.locator('.live-figures').screenshot({ path: join(docs, 'live-moment.png') });
    await p.setViewportSize({ width, height });
  }
  if (width === 390 && theme === 'dark') {
    // the first screen a phone shows (the tall viewport above left the page scrolled)
    await p.evaluate(() => scrollTo(0, 0));
    await p.screenshot({ path: join(docs, 'live-phone-dark.png') });
  }
}

// NATS goes away: the bar says so
await nats.kill();
const p = pages.find((x) => x.width === 1280 && x.theme === 'light').p;
await p.waitForFunction(() => document.querySelector('spate-planner').shadowRoot.querySelector('.live-bar')?.dataset.status === 'reconnecting', null, { timeout: 10000 });
await p.locator('.live-bar').screenshot({ path: join(docs, 'live-reconnecting.png') });
await nats.restart();

await chrome.close();
server.stop();
await w.close();
await nats.stop();
console.log(`screenshots written to ${docs} and ${review}`);
