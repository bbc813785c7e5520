#!/usr/bin/env node
// Dashboard figures in headless Chromium (served by the real binary):
//   1. load and plan of a big snapshot (default 100,000 splits x 1,000 members), end to end;
//   2. a what-if replan at 10,000 splits x 100 members (add a member; worker round trip);
//   3. the longest main-thread task seen (PerformanceObserver 'longtask') during both.
//   node tests/bench/browser.mjs [SPLITS MEMBERS]
import { mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, launch, cli, ready } from '../e2e/browser.mjs';

const [bigSplits = '100000', bigMembers = '1000'] = process.argv.slice(2);
const dir = await mkdtemp(join(tmpdir(), 'spate-bench-'));
const chrome = await launch();

async function page() {
  const p = await chrome.browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await p.addInitScript(() => {
    window.__longest = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longest = Math.max(window.__longest, e.duration);
    }).observe({ type: 'longtask', buffered: true });
  });
  return p;
}

async function snapshot(splits, members, name) {
  const file = join(dir, name);
  const r = await cli(['demo', '--splits', splits, '--members', members, '--job', 'bench', '-o', file]);
  if (r.status !== 0) throw new Error(r.stderr);
  return { file, bytes: (await stat(file)).size };
}

console.log('figure value');
{
  const snap = await snapshot(bigSplits, bigMembers, 'big.json');
  const server = await startServer([snap.file]);
  const p = await page();
  const t0 = Date.now();
  await p.goto(`${server.url}?snapshot=snapshot.json`);
  await ready(p, 0, 120000);
  const ms = Date.now() - t0;
  const longest = await p.evaluate(() => window.__longest);
  console.log(`load_and_plan_${bigSplits}x${bigMembers}_ms ${ms} (snapshot ${(snap.bytes / 1048576).toFixed(1)} MiB, navigation to first plan rendered)`);
  console.log(`longest_main_thread_task_during_load_ms ${longest.toFixed(0)}`);
  await p.close();
  server.stop();
}
{
  const snap = await snapshot('10000', '100', 'mid.json');
  const server = await startServer([snap.file]);
  const p = await page();
  await p.goto(`${server.url}?snapshot=snapshot.json`);
  let n = await ready(p, 0, 60000);
  await p.evaluate(() => { window.__longest = 0; });
  const times = [];
  for (let i = 0; i < 5; i++) {
    await p.locator('input[aria-label="new member name"]').fill(`bench-new-${i}`);
    await p.locator('input[aria-label="new member cap"]').fill('200');
    const t0 = Date.now();
    await p.locator('form.change', { hasText: 'Add a member' }).locator('button').click();
    n = await ready(p, n, 60000);
    const wall = Date.now() - t0;
    times.push({ roundTrip: Number(await p.getAttribute('spate-planner', 'data-replan-ms')), wall });
  }
  const longest = await p.evaluate(() => window.__longest);
  times.sort((a, b) => a.roundTrip - b.roundTrip);
  const med = times[Math.floor(times.length / 2)];
  console.log(`whatif_replan_10000x100_ms ${med.roundTrip.toFixed(1)} (median of 5 adds; worker round trip incl. baseline; click-to-render ${med.wall} ms)`);
  console.log(`longest_main_thread_task_during_whatif_ms ${longest.toFixed(0)}`);
  await p.close();
  server.stop();
}
await chrome.close();
