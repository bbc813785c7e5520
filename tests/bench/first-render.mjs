#!/usr/bin/env node
// First render in headless Chromium (issue 34's goals: 20,000 splits × 200 members under 1 s,
// 100,000 × 1,000 under 2 s): from navigation to the frame after the fleet chart is drawn (the
// element's first `plan-change`, then the next animation frame), for a snapshot served by the
// real binary (`spate-planner serve job.json`, its files as built into it). Each run opens a
// fresh browser context (nothing cached: the page, the module and the snapshot fetched and the
// module compiled), then reloads it once (the module and its glue kept, named by content).
// Prints, per size, the median of the runs and where the first load's time went, from the
// User Timing measures the worker makes (`spate:…`: the module compiled, the snapshot read,
// parsed, its summary, the plan; in milliseconds since the navigation started) and the page's
// part after the plan (`drawn`: the answer taken, drawn and painted):
//   node tests/bench/first-render.mjs [--runs N] [SPLITSxMEMBERS ...]
//   (default: --runs 5 20000x200 100000x1000)
import { mkdtemp, stat, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, launch, cli } from '../e2e/browser.mjs';

const args = process.argv.slice(2);
const runsAt = args.indexOf('--runs');
const runs = runsAt >= 0 ? Number(args.splice(runsAt, 2)[1]) : 5;
const sizes = (args.length ? args : ['20000x200', '100000x1000']).map((s) => s.split('x'));

/** Marks the first painted frame after the first plan shown (ms since navigation start). */
function watchFirstPaint() {
  addEventListener('plan-change', () => requestAnimationFrame(() => setTimeout(() => {
    window.__firstPaint ??= performance.now();
  })), { once: true });
}

/** The User Timing measures of a realm: [name, start, end], in ms since `origin` (a timeOrigin). */
function measuresSince(origin) {
  const shift = performance.timeOrigin - origin;
  return performance.getEntriesByType('measure').filter((m) => m.name.startsWith('spate:'))
    .map((m) => [m.name.slice(6), m.startTime + shift, m.startTime + m.duration + shift]);
}

/** Opens `url` in `context` (or reloads `page`); resolves to { ms, steps } once painted. */
async function firstRender(page, open) {
  await open();
  await page.waitForFunction(() => window.__firstPaint !== undefined, null, { timeout: 120000 });
  const origin = await page.evaluate(() => performance.timeOrigin);
  const ms = await page.evaluate(() => window.__firstPaint);
  const steps = await page.evaluate(measuresSince, origin);
  for (const w of page.workers()) steps.push(...await w.evaluate(measuresSince, origin));
  // the page's part: the plan's answer taken, drawn and painted
  const plan = steps.find((s) => s[0] === 'plan');
  if (plan) steps.push(['drawn', plan[2], ms]);
  return { ms, steps: steps.sort((a, b) => a[1] - b[1]) };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The median of each step's end and length over the runs, as text. */
function stepsText(all) {
  const names = [...new Set(all.flatMap((r) => r.steps.map((s) => s[0])))];
  return names.map((n) => {
    const of = all.map((r) => r.steps.find((s) => s[0] === n)).filter(Boolean);
    return `${n} ${median(of.map((s) => s[2] - s[1])).toFixed(0)} ms (ends at ${median(of.map((s) => s[2])).toFixed(0)})`;
  }).join(', ');
}

const dir = await mkdtemp(join(tmpdir(), 'spate-first-render-'));
const chrome = await launch();
console.log('figure value');
for (const [splits, members] of sizes) {
  const file = join(dir, `${splits}x${members}.json`);
  const made = await cli(['demo', '--splits', splits, '--members', members, '--job', 'bench', '-o', file]);
  if (made.status !== 0) throw new Error(made.stderr);
  const mib = ((await stat(file)).size / 1048576).toFixed(1);
  const server = await startServer([file]);
  const cold = [];
  const warm = [];
  for (let i = 0; i < runs; i++) {
    const context = await chrome.browser.newContext({ viewport: { width: 1400, height: 1000 } });
    await context.addInitScript(watchFirstPaint);
    const page = await context.newPage();
    cold.push(await firstRender(page, () => page.goto(server.url)));
    warm.push(await firstRender(page, () => page.reload()));
    await context.close();
  }
  const ms = (rs) => rs.map((r) => r.ms);
  console.log(`first_render_${splits}x${members}_ms ${median(ms(cold)).toFixed(0)} (median of ${runs}, nothing cached; ${mib} MiB snapshot; runs ${ms(cold).map((m) => m.toFixed(0)).join(' ')})`);
  console.log(`first_render_${splits}x${members}_reload_ms ${median(ms(warm)).toFixed(0)} (median of ${runs}, the same page reloaded; runs ${ms(warm).map((m) => m.toFixed(0)).join(' ')})`);
  console.log(`first_render_${splits}x${members}_steps ${stepsText(cold) || 'no spate: measures'}`);
  server.stop();
}
await chrome.close();
await rm(dir, { recursive: true, force: true });
