#!/usr/bin/env node
// The Timeline's figures in headless Chromium (served by the real binary): 10 minutes of a
// 10,000-split, 100-member fleet with a crash at 60 s and a rolling restart of 10 members (each
// stopped gracefully and started again 10 s later with its own cap, one every 30 s; drains of
// 2 s), as `spate-planner bench --sim` runs it, on a steady fleet (equal weights) and on the demo
// fleet (byte weights). Per run: the worker's busy time (the wasm simulation, the reduction to
// series, the round trip with the copy to the page), the main thread's time to draw the result
// and to the next painted frame, the longest main-thread task while it ran, and a scrubber step
// to the frame painted with the worker's answer (A alone, then A and B).
// Then the fleet, the demo's 20,000 splits on 200 members, for the scrubber at that size.
//   node tests/bench/timeline.mjs [REPEATS] [steady|demo|big]   (a name: only that fleet)
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, launch, cli, ready } from '../e2e/browser.mjs';
import { steadySnapshot } from '../e2e/steady-fleet.mjs';

const repeats = Number(process.argv[2] || 3);
const only = process.argv[3] || null;
const dir = await mkdtemp(join(tmpdir(), 'spate-bench-timeline-'));
const chrome = await launch();

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** One run in a fresh page: the script set through the controller, the Timeline tab opened. */
async function once(url) {
  const page = await chrome.browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await page.addInitScript(() => {
    window.__longest = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longest = Math.max(window.__longest, e.duration);
    }).observe({ type: 'longtask', buffered: true });
  });
  await page.goto(url);
  await ready(page, 0, 120000);
  await page.evaluate(() => {
    const c = document.querySelector('spate-planner').controller;
    const caps = new Map(c.state.info.members.map((m) => [m.name, m.max_in_flight]));
    // the members in name order (worker-05 and worker-20… on 100 members)
    const names = c.state.info.members.map((m) => m.name).sort();
    const events = [{ at_ms: 60000, op: 'crash', member: names[5] }];
    for (let i = 0; i < 10; i++) {
      const member = names[20 + i];
      events.push({ at_ms: 90000 + i * 30000, op: 'stop', member }, { at_ms: 100000 + i * 30000, op: 'start', member, ...(caps.get(member) ? { cap: caps.get(member) } : {}) });
    }
    window.__longest = 0;
    c.setTimeline({ script: { data_plane: { drain_ms: 2000 }, events }, b: null });
  });
  await page.locator('.tab[data-tab="timeline"]').click();
  await page.waitForFunction(() => document.querySelector('spate-planner').shadowRoot.querySelector('.timeline')?.dataset.run, null, { timeout: 300000 });
  const r = await page.evaluate(() => {
    const c = document.querySelector('spate-planner').controller;
    const d = document.querySelector('spate-planner').shadowRoot.querySelector('.timeline').dataset;
    return { ...c.state.timelineRun.a.timing, drawMs: Number(d.drawMs), paintMs: Number(d.paintMs), longest: window.__longest, claims: c.state.timelineRun.a.figures.claims };
  });
  const scrubStep = () => page.evaluate(async () => {
    const fleet = document.querySelector('spate-planner').shadowRoot.querySelector('.tl-fleet');
    const s = fleet.querySelector('input[type=range]');
    const times = [];
    for (let v = 30; v < 600; v += 30) {
      const t0 = performance.now();
      s.value = String(v);
      s.dispatchEvent(new Event('input'));
      // the worker's answer drawn (the fleet's data-t is set then), then the frame painted
      await new Promise((done) => {
        const seen = new MutationObserver(() => { if (fleet.dataset.t === String(v * 1000)) { seen.disconnect(); done(); } });
        seen.observe(fleet, { attributes: true, attributeFilter: ['data-t'] });
      });
      await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
      times.push(performance.now() - t0);
    }
    return times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
  });
  r.scrubMs = await scrubStep();
  // and with configuration B beside A (no rebalance delay): two fleets at each step
  const runs = await page.evaluate(() => Number(document.querySelector('spate-planner').shadowRoot.querySelector('.timeline').dataset.run));
  await page.locator('label', { hasText: 'Compare with a second configuration (B)' }).locator('input').check();
  await page.waitForFunction((n) => Number(document.querySelector('spate-planner').shadowRoot.querySelector('.timeline').dataset.run) > n
    && document.querySelector('spate-planner').controller.state.timelineRun?.b, runs, { timeout: 300000 });
  r.scrubBothMs = await scrubStep();
  await page.close();
  return r;
}

async function fleet(name, file) {
  const server = await startServer([file]);
  try {
    const runs = [];
    for (let i = 0; i < repeats; i++) runs.push(await once(server.url));
    const m = (k) => median(runs.map((x) => x[k]));
    console.log(`${name}: ${runs[0].claims} claims`);
    console.log(`  worker: simulation, summary and series ${m('simMs').toFixed(0)} ms + model ${m('modelMs').toFixed(0)} ms; round trip ${m('roundTripMs').toFixed(0)} ms`);
    console.log(`  main thread: draw ${m('drawMs').toFixed(0)} ms, to the next painted frame ${m('paintMs').toFixed(0)} ms; longest task ${m('longest').toFixed(0)} ms; a scrubber step ${m('scrubMs').toFixed(0)} ms to its frame (A), ${m('scrubBothMs').toFixed(0)} ms (A and B)`);
  } finally {
    server.stop();
  }
}

console.log(`median of ${repeats} runs each`);
const wanted = (name) => !only || only === name;
async function demoFile(splits, members) {
  const file = join(dir, `demo-${members}.json`);
  const r = await cli(['demo', '--splits', String(splits), '--members', String(members), '--job', 'bench', '-o', file]);
  if (r.status !== 0) throw new Error(r.stderr);
  return file;
}
if (wanted('steady')) await fleet('steady 10,000 x 100 (equal weights)', (await steadySnapshot(join(dir, 'steady.json'), { job: 'bench', members: 100, per: 100, cap: 128 })).file);
if (wanted('demo')) await fleet('demo 10,000 x 100 (byte weights)', await demoFile(10000, 100));
if (wanted('big')) await fleet('demo 20,000 x 200 (byte weights)', await demoFile(20000, 200));
await chrome.close();
