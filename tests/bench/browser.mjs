#!/usr/bin/env node
// Dashboard figures in headless Chromium (served by the real binary):
//   1. load and plan of a big snapshot (default 100,000 splits x 1,000 members), end to end;
//   2. a what-if at 20,000 splits x 200 members: from the Apply click to the next frame painted;
//   3. the longest main-thread task seen (PerformanceObserver 'longtask') during both;
//   4. a 32-step sweep at 10,000 splits x 100 members (Sweep tab, planned in the worker): from
//      the request to the frame after the curves are drawn, per axis, and the longest time the
//      page went without a frame meanwhile.
//   node tests/bench/browser.mjs [SPLITS MEMBERS] [--sweep (only 4)]
import { mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, launch, cli, ready } from '../e2e/browser.mjs';

const sweepOnly = process.argv.includes('--sweep');
const [bigSplits = '100000', bigMembers = '1000'] = process.argv.slice(2).filter((a) => a !== '--sweep');
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
if (!sweepOnly) {
  const snap = await snapshot(bigSplits, bigMembers, 'big.json');
  const server = await startServer([snap.file]);
  const p = await page();
  const t0 = Date.now();
  await p.goto(server.url);
  await ready(p, 0, 120000);
  const ms = Date.now() - t0;
  const longest = await p.evaluate(() => window.__longest);
  console.log(`load_and_plan_${bigSplits}x${bigMembers}_ms ${ms} (snapshot ${(snap.bytes / 1048576).toFixed(1)} MiB, navigation to first plan rendered)`);
  console.log(`longest_main_thread_task_during_load_ms ${longest.toFixed(0)}`);
  await p.close();
  server.stop();
}
if (!sweepOnly) {
  const snap = await snapshot('20000', '200', 'mid.json');
  const server = await startServer([snap.file]);
  const p = await page();
  await p.goto(server.url);
  await ready(p, 0, 60000);
  await p.evaluate(() => { window.__longest = 0; });
  const times = [];
  for (let i = 0; i < 7; i++) {
    // click to paint, measured in the page: from the Apply click to the frame after the plan is drawn
    times.push(await p.evaluate((name) => new Promise((resolve) => {
      const el = document.querySelector('spate-planner');
      const form = el.shadowRoot.querySelector('form[data-form="add"]');
      form.querySelector('[aria-label="new member name"]').value = name;
      form.querySelector('[aria-label="new member cap"]').value = '200';
      let t0 = 0;
      el.addEventListener('plan-change', () => requestAnimationFrame(() => setTimeout(() => resolve({
        paint: performance.now() - t0, roundTrip: Number(el.dataset.replanMs),
      }))), { once: true });
      t0 = performance.now();
      form.querySelector('button[type=submit]').click();
    }), `bench-new-${i}`));
    // back to the baseline, so that each click adds one member to the same fleet
    await p.evaluate(() => document.querySelector('spate-planner').controller.undo());
  }
  const longest = await p.evaluate(() => window.__longest);
  times.sort((a, b) => a.paint - b.paint);
  const med = times[Math.floor(times.length / 2)];
  console.log(`whatif_click_to_paint_20000x200_ms ${med.paint.toFixed(1)} (median of 7 adds; worker round trip incl. baseline ${med.roundTrip.toFixed(1)} ms)`);
  console.log(`longest_main_thread_task_during_whatif_ms ${longest.toFixed(0)}`);
  await p.close();
  server.stop();
}
{
  const snap = await snapshot('10000', '100', 'sweep.json');
  const server = await startServer([snap.file]);
  const p = await page();
  await p.goto(server.url);
  await ready(p, 0, 60000);
  await p.locator('spate-planner .tab[data-tab="sweep"]').click();
  await p.waitForSelector('spate-planner .sweep[data-has-result="true"]', { timeout: 60000 });
  for (const [axis, from, to] of [['add_members', 0, 31], ['default_cap', 2, 33], ['member_cap', 2, 33]]) {
    const runs = [];
    for (let i = 0; i < 5; i++) {
      runs.push(await p.evaluate(async (params) => {
        const el = document.querySelector('spate-planner');
        let gap = 0;
        let last = performance.now();
        let on = true;
        const frame = () => { const t = performance.now(); gap = Math.max(gap, t - last); last = t; if (on) requestAnimationFrame(frame); };
        requestAnimationFrame(frame);
        const t0 = performance.now();
        await el.app.review.sweep(params);
        await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve)));
        on = false;
        return { ms: performance.now() - t0, worker: el.controller.state.sweep.ms, gap };
      }, { axis, from, to, cap: 0 }));
    }
    runs.sort((a, b) => a.ms - b.ms);
    const med = runs[2];
    console.log(`sweep_32_steps_${axis}_10000x100_ms ${med.ms.toFixed(0)} (median of 5, request to painted frame; worker ${med.worker.toFixed(0)} ms; longest frame gap ${Math.max(...runs.map((r) => r.gap)).toFixed(0)} ms)`);
  }
  await p.close();
  server.stop();
}
await chrome.close();
