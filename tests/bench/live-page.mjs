#!/usr/bin/env node
// The live page's figures in headless Chromium, on a job already in a NATS server and a running
// `spate-planner serve --server` (scripts/bench-live-page sets both up):
//   1. first render: navigation to the first plan rendered;
//   2. one change to its replan rendered (NATS put → server watch → stream → worker → plan →
//      render → next animation frame), p50/p95/max over N changes, one every 250 ms;
//   3. 1,000 changes a second for 10 s: whether the page keeps up (its lag behind the writer);
//   4. the browser's CPU (every Chromium process of this run, workers included) over 10 s
//      when nothing changes.
//   node tests/bench/live-page.mjs PAGE_URL NATS_PORT JOB [CHANGES]
import { readFileSync, readdirSync } from 'node:fs';
import { launch, ready } from '../e2e/browser.mjs';
import { jobWriter } from '../e2e/live-fixture.mjs';

const [url, natsPort, job, changes = '200'] = process.argv.slice(2);
const writer = await jobWriter({ port: Number(natsPort) }, job);
const chrome = await launch();
const page = await chrome.browser.newPage({ viewport: { width: 1400, height: 1000 } });
const errors = [];
page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
page.on('pageerror', (e) => errors.push(e.message));
await page.addInitScript(() => {
  window.__frames = [];
  window.__longest = 0;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__longest = Math.max(window.__longest, e.duration);
  }).observe({ type: 'longtask', buffered: true });
  addEventListener('plan-change', (e) => {
    const rev = e.detail.revisions;
    const s = document.querySelector('spate-planner').controller.state;
    const applyMs = s.live.applyMs;
    const planMs = e.detail.planMs;
    requestAnimationFrame(() => window.__frames.push({ rev, at: Date.now(), applyMs, planMs }));
  });
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const leaseRev = (rev) => Number(String(rev).split('-')[1]);
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

/** CPU seconds used so far by every process under this one (Chromium and its helpers). */
function cpuSeconds() {
  const parent = new Map();
  const ticks = new Map();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parent.set(pid, f[1]);
      ticks.set(pid, Number(f[11]) + Number(f[12]));
    } catch { /* gone */ }
  }
  const mine = (pid) => { for (let p = pid; p && p !== '0'; p = parent.get(p)) if (p === String(process.pid)) return true; return false; };
  let sum = 0;
  for (const [pid, t] of ticks) if (pid !== String(process.pid) && mine(pid)) sum += t;
  return sum / 100;
}

/** Waits for the frame showing lease revision `rev`; resolves to its time. */
async function frameAt(rev, timeout = 10000) {
  const h = await page.waitForFunction((r) => window.__frames.find((f) => Number(f.rev.split('-')[1]) >= r)?.at, rev, { timeout, polling: 5 });
  return h.jsonValue();
}

console.log('figure value');
const t0 = Date.now();
await page.goto(url);
await ready(page, 0, 120000);
const first = Date.now() - t0;
const members = await page.evaluate(() => document.querySelector('spate-planner').controller.state.info.members.length);
console.log(`first_render_ms ${first} (navigation to the first plan rendered; ${members} members)`);
console.log(`longest_main_thread_task_during_first_render_ms ${(await page.evaluate(() => window.__longest)).toFixed(0)}`);
await sleep(1500); // the first frame's one-time work (the split list for the timeline) done

const lat = [];
for (let i = 0; i < Number(changes); i++) {
  const start = Date.now();
  const rev = await writer.put('lease', `worker.bench-${i % 50}`, `{"schema":3,"nonce":"nb","max_in_flight":${1 + (i % 9)}}`);
  lat.push((await frameAt(rev)) - start);
  await sleep(250);
}
lat.sort((a, b) => a - b);
console.log(`change_to_rendered_replan_ms p50 ${pct(lat, 0.5)} p95 ${pct(lat, 0.95)} max ${lat[lat.length - 1]} (${lat.length} changes, one every 250 ms)`);
const parts = await page.evaluate(() => window.__frames.slice(1));
const ms = (k) => parts.map((f) => f[k]).filter((v) => typeof v === 'number').sort((a, b) => a - b);
const [ap, pl] = [ms('applyMs'), ms('planMs')];
console.log(`  of which in the worker: nextFrame (join what the changes touched + the frame's events) p50 ${pct(ap, 0.5).toFixed(0)} p95 ${pct(ap, 0.95).toFixed(0)}; plan p50 ${pct(pl, 0.5).toFixed(0)} p95 ${pct(pl, 0.95).toFixed(0)}`);

// 1,000 changes a second for 10 s, in batches of 20 every 20 ms
await page.evaluate(() => { window.__frames = []; window.__longest = 0; });
const lags = [];
let last = 0;
const start = Date.now();
for (let b = 0; b < 500; b++) {
  const due = start + b * 20;
  if (due > Date.now()) await sleep(due - Date.now());
  const batch = Array.from({ length: 20 }, (_, k) => [`worker.flood-${(b * 20 + k) % 200}`, `{"schema":3,"nonce":"nf","max_in_flight":${1 + ((b + k) % 9)}}`]);
  last = await writer.flood('lease', batch);
  if (b % 25 === 24) {
    const shown = await page.evaluate(() => document.querySelector('spate-planner').dataset.revisions);
    lags.push(last - leaseRev(shown));
  }
}
const end = Date.now();
const shownAt = await frameAt(last, 30000);
const frames = await page.evaluate(() => window.__frames.length);
console.log(`throughput_10000_changes_sent_in_ms ${end - start} (${Math.round(10000 / ((end - start) / 1000))}/s); the page showed the last ${Math.max(0, shownAt - end)} ms after it was acknowledged; `
  + `lag sampled every 0.5 s (changes behind): max ${Math.max(...lags)}, last ${lags[lags.length - 1]}; ${frames} frames rendered; longest main-thread task ${(await page.evaluate(() => window.__longest)).toFixed(0)} ms`);

await sleep(2000);
const cpu0 = cpuSeconds();
const f0 = await page.evaluate(() => window.__frames.length);
await sleep(10000);
const cpu1 = cpuSeconds();
const f1 = await page.evaluate(() => window.__frames.length);
console.log(`idle_browser_cpu_seconds_over_10s ${(cpu1 - cpu0).toFixed(2)} (every Chromium process, workers included; ${f1 - f0} frames)`);
const heap = await page.evaluate(() => performance.memory?.usedJSHeapSize);
if (heap) console.log(`page_js_heap_mb ${(heap / 1048576).toFixed(0)} (main thread)`);
console.log(`console_errors ${errors.length}${errors.length ? `: ${errors.slice(0, 3).join(' | ')}` : ''}`);
await writer.close();
await chrome.close();
