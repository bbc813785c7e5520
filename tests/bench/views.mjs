#!/usr/bin/env node
// The Claims tab's open time in headless Chromium (served by the real binary) on the issue's
// fleet, the demo's 20,000 splits on 200 members: from the click on the tab to the panel drawn
// (the page's clock), and the panel's own figure (the request to the worker and the drawing:
// data-ms), acting on the published records and on the plan.
//   node tests/bench/views.mjs [REPEATS]
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, launch, cli, ready } from '../e2e/browser.mjs';

const repeats = Number(process.argv[2] || 5);
const dir = await mkdtemp(join(tmpdir(), 'spate-bench-views-'));
const file = join(dir, 'big.json');
const made = await cli(['demo', '--splits', '20000', '--members', '200', '--job', 'bench', '-o', file]);
if (made.status !== 0) throw new Error(made.stderr);
const chrome = await launch();
const server = await startServer([file]);

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** One open of the Claims tab in a fresh page: { openMs, panelMs }, then on the plan: { planMs }. */
async function once() {
  const page = await chrome.browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await page.goto(server.url);
  await ready(page, 0, 120000);
  const openMs = await page.evaluate(async () => {
    const root = document.querySelector('spate-planner').shadowRoot;
    const t0 = performance.now();
    root.querySelector('.tab[data-tab="claims"]').click();
    while (!root.querySelector('.claims [data-ready]')) await new Promise((done) => requestAnimationFrame(done));
    return performance.now() - t0;
  });
  const panelMs = Number(await page.locator('.claims .scroll').getAttribute('data-ms'));
  await page.locator('select[aria-label="assignment the workers act on"]').selectOption('plan');
  await page.waitForFunction(() => /acting on the plan/.test(document.querySelector('spate-planner').shadowRoot.querySelector('.claims-summary').textContent));
  const planMs = Number(await page.locator('.claims .scroll').getAttribute('data-ms'));
  await page.close();
  return { openMs, panelMs, planMs };
}

try {
  const runs = [];
  for (let i = 0; i < repeats; i++) runs.push(await once());
  const m = (k) => median(runs.map((r) => r[k])).toFixed(0);
  console.log(`Claims at 200 members, 20,000 splits (median of ${repeats}): opened ${m('openMs')} ms to its frame; `
    + `request and drawing ${m('panelMs')} ms on the published records, ${m('planMs')} ms on the plan`);
} finally {
  server.stop();
  await chrome.close();
}
