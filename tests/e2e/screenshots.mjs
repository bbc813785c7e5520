#!/usr/bin/env node
// Retakes the user guide's screenshots (docs/images/) from the built dashboard.
//   node tests/e2e/screenshots.mjs
import { join } from 'node:path';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { startServer, launch, ready, repoRoot, applyForm, openWhatIf } from './browser.mjs';
import { demo, withoutCaps, laterSnapshot, planOf } from './review-fixtures.mjs';
import { steadySnapshot } from './steady-fleet.mjs';
import { snapshotOfCase } from './rules-fixtures.mjs';

const out = join(repoRoot, 'docs/images');
const chrome = await launch();
const server = await startServer([]);

async function page(width, height, theme = 'light') {
  const p = await chrome.browser.newPage({ viewport: { width, height }, colorScheme: theme });
  await p.goto(server.url);
  await ready(p);
  return p;
}

let p = await page(1400, 900);
await p.screenshot({ path: join(out, 'overview.png') });
// tall enough that the chart needs no scrolling: the sticky strip stays above it, the pointer on worker-04
await p.setViewportSize({ width: 1400, height: 1600 });
await p.locator('.chart button[data-member="worker-04"]').hover();
await p.locator('.fleet').screenshot({ path: join(out, 'fleet-tooltip.png') });
await p.setViewportSize({ width: 1400, height: 900 });
await p.locator('li[data-departed="worker-gone-7f3a"] input').uncheck();
let n = await ready(p, 1);
await applyForm(p, 'add', { 'new member name': 'worker-new', 'new member cap': '128' });
n = await ready(p, n);
await applyForm(p, 'add', { 'new member name': 'worker-01' });
await p.waitForSelector('form[data-form="add"] .form-error:not(:empty)');
await p.locator('.summary').screenshot({ path: join(out, 'summary-whatif.png') });
await p.setViewportSize({ width: 1400, height: 2400 });
await p.locator('.whatif').screenshot({ path: join(out, 'whatif.png') });
await p.setViewportSize({ width: 1400, height: 900 });
await p.locator('.tab[data-tab="details"]').click();
await p.locator('.tabs').screenshot({ path: join(out, 'figures-whatif.png') });
await p.locator('.chart button[data-member="worker-04"]').click();
await p.locator('.tab[data-tab="moves"]').click();
await p.waitForFunction(() => !document.querySelector('spate-planner').shadowRoot.querySelector('.moves .focus-chip').hidden);
await p.waitForTimeout(300);
await p.locator('.tabs').screenshot({ path: join(out, 'moves.png') });
await p.locator('.tab[data-tab="claims"]').click();
await p.waitForSelector('.claims [data-ready]');
await p.locator('.tabs').screenshot({ path: join(out, 'claims.png') });
await p.locator('.tab[data-tab="convergence"]').click();
await p.locator('button', { hasText: 'Run rounds' }).click();
await p.waitForSelector('.convergence [data-rounds]');
await p.locator('.tabs').screenshot({ path: join(out, 'convergence.png') });
await p.close();

p = await page(1400, 900, 'dark');
await p.screenshot({ path: join(out, 'dark.png') });
await p.close();

p = await page(390, 844);
await openWhatIf(p);
await applyForm(p, 'add', { 'new member name': 'worker-new', 'new member cap': '128' });
await ready(p, 1);
await p.screenshot({ path: join(out, 'phone-whatif.png') });
await p.close();

// a phone by touch: the one-line strip over the chart's first rows, a member's figures after a
// tap, the keyboard shortcuts (the header's ? button)
p = await chrome.browser.newPage({ viewport: { width: 390, height: 844 }, colorScheme: 'light', hasTouch: true, isMobile: true });
await p.goto(server.url);
await ready(p);
await p.screenshot({ path: join(out, 'phone-strip.png') });
await p.locator('.chart button[data-member="worker-04"]').tap();
await p.waitForFunction(() => !document.querySelector('spate-planner').shadowRoot.querySelector('.fleet .tooltip').hidden);
await p.screenshot({ path: join(out, 'phone-popover.png') });
await p.locator('.load button[aria-label="Keyboard shortcuts (?)"]').tap();
await p.waitForSelector('dialog.help[open]');
await p.screenshot({ path: join(out, 'phone-help.png') });
await p.close();

// a wall screen: larger type, the chart beside the details
p = await page(2560, 1440);
await p.screenshot({ path: join(out, 'wall.png') });
await p.close();

// design review: the sweep, a comparison and the printed page, on a job and its state an hour later
const dir = await mkdtemp(join(tmpdir(), 'spate-shots-'));
const fleet = await withoutCaps(await demo(dir, 'orders-0900.json', ['--splits', '1500', '--members', '12', '--job', 'orders', '--seed', '3']), ['worker-01', 'worker-02']);
const later = join(dir, 'orders-1000.json');
await laterSnapshot(fleet, later, await planOf(fleet));
const reviewServer = await startServer([]);
/** The panels as they read, without the sticky summary strip over them. */
const unstick = (pg) => pg.evaluate(() => {
  const root = document.querySelector('spate-planner').shadowRoot;
  for (const sel of ['.top', '.side']) root.querySelector(sel).style.position = 'static';
});
/** The top `height` px of what `selector` matches (in page coordinates: below any scroll). */
async function shot(pg, selector, path, height = 1000, from = selector, span = height) {
  const box = (sel) => pg.locator(sel).evaluate((e) => {
    const b = e.getBoundingClientRect();
    return { x: b.left + scrollX, y: b.top + scrollY, width: b.width, height: b.height };
  });
  const r = await box(selector);
  const top = (await box(from)).y;
  await pg.screenshot({ path, fullPage: true, clip: { x: r.x, y: top, width: r.width, height: Math.min(r.y + r.height - top, span) } });
}
p = await chrome.browser.newPage({ viewport: { width: 1400, height: 900 }, colorScheme: 'light' });
await p.goto(reviewServer.url);
n = await ready(p);
await p.locator('input[aria-label="snapshot file"]').setInputFiles(fleet);
n = await ready(p, n);
await p.locator('.tab[data-tab="compare"]').click();
await p.locator('button', { hasText: 'Keep this snapshot as "before"' }).click();
await p.waitForFunction(() => /^Kept/.test(document.querySelector('spate-planner').shadowRoot.querySelector('.before-line').textContent));
await p.locator('input[aria-label="snapshot file"]').setInputFiles(later);
await p.waitForSelector('.compare[data-has-result="true"]', { timeout: 30000 });
await unstick(p);
await shot(p, '.tabs', join(out, 'compare.png'), 1150);
await p.locator('.tab[data-tab="sweep"]').click();
await p.waitForSelector('.sweep[data-has-result="true"]', { timeout: 30000 });
await p.waitForTimeout(300);
await shot(p, '.tabs', join(out, 'sweep.png'), 950);
// on paper (A4 width): the top of the first page, and the sweep and the comparison
await p.mouse.move(0, 0);
await p.setViewportSize({ width: 794, height: 1123 });
await p.emulateMedia({ media: 'print' });
await p.evaluate(() => scrollTo(0, 0));
await p.waitForTimeout(300);
await p.screenshot({ path: join(out, 'print.png') });
await shot(p, '.tabs', join(out, 'print-review.png'), 99999, '#panel-sweep', 1500);
await p.close();
p = await chrome.browser.newPage({ viewport: { width: 390, height: 844 }, colorScheme: 'dark' });
await p.goto(reviewServer.url);
n = await ready(p);
await p.locator('input[aria-label="snapshot file"]').setInputFiles(later);
await ready(p, n);
await p.locator('.tab[data-tab="sweep"]').click();
await p.waitForSelector('.sweep[data-has-result="true"]', { timeout: 30000 });
await unstick(p);
await shot(p, '.sweep-result', join(out, 'phone-sweep-dark.png'), 900);
await p.close();
reviewServer.stop();
// what upgrading changes: the upstream #820 situation on a 0.1.x/0.2.x store, both releases' plans
const batch = await snapshotOfCase(dir, 'batch.json', 'batch', 'regression-820-second', { elector: false });
const upgradeServer = await startServer([batch]);
p = await chrome.browser.newPage({ viewport: { width: 1400, height: 900 }, colorScheme: 'light' });
await p.goto(upgradeServer.url);
await ready(p);
await p.locator('.tab[data-tab="upgrade"]').click();
await p.waitForSelector('.upgrade[data-has-result="true"]', { timeout: 30000 });
await unstick(p);
await shot(p, '.tabs', join(out, 'upgrade.png'), 1250);
await p.close();
upgradeServer.stop();
// the Timeline, on a steady fleet (six members, ten splits each) and on a hundred members
const work = await mkdtemp(join(tmpdir(), 'spate-shots-'));
const steady = await startServer([(await steadySnapshot(join(work, 'steady.json'))).file]);
const timelineDone = (pg, n = 0) => pg.waitForFunction((k) => Number(document.querySelector('spate-planner').shadowRoot.querySelector('.timeline')?.dataset.run || 0) > k, n, { timeout: 120000 });
p = await chrome.browser.newPage({ viewport: { width: 1400, height: 3200 }, colorScheme: 'light' });
await p.goto(steady.url);
await ready(p);
await p.locator('.chart button[data-member="worker-03"]').click();
await p.locator('.fleet').screenshot({ path: join(out, 'timeline-from-chart.png') });
await p.locator('.row-actions button', { hasText: 'Crash at t = 0' }).click();
await timelineDone(p);
await p.locator('label', { hasText: 'Compare with a second configuration (B)' }).locator('input').check();
await timelineDone(p, 1);
await p.locator('.tabs').screenshot({ path: join(out, 'timeline.png') });
await p.locator('.tl-jumps button', { hasText: 'A: most idle' }).click();
await p.waitForTimeout(200);
await p.locator('.tl-fleet').screenshot({ path: join(out, 'timeline-fleet.png') });
await p.close();
steady.stop();

const hundred = await startServer([(await steadySnapshot(join(work, 'hundred.json'), { job: 'hundred', members: 100, per: 100, cap: 128 })).file]);
p = await chrome.browser.newPage({ viewport: { width: 1400, height: 2000 }, colorScheme: 'dark' });
const events = [{ at_ms: 60000, op: 'crash', member: 'worker-05' }];
for (let i = 0; i < 10; i++) events.push({ at_ms: 90000 + i * 30000, op: 'stop', member: `worker-${20 + i}` }, { at_ms: 100000 + i * 30000, op: 'start', member: `worker-${20 + i}`, cap: 128 });
await p.goto(`${hundred.url}#timeline=${encodeURIComponent(JSON.stringify({ data_plane: { drain_ms: 2000 }, events }))}`);
await ready(p, 0, 60000);
await timelineDone(p);
await p.locator('.tl-charts').screenshot({ path: join(out, 'timeline-hundred.png') });
await p.close();
hundred.stop();

await chrome.close();
server.stop();
console.log(`screenshots written to ${out}`);
