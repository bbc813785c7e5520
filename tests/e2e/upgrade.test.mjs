// The Upgrade tab (issue 24) in Debian's headless Chromium, served by the real binary: the plan
// shown planned by Spate 0.1's rules and by 0.3's, side by side. Its stores are the upstream
// #824 situation as a 0.3.0 store and the #820 situation as a 0.1.x/0.2.x store, written into a
// real nats-server and exported (rules-fixtures.mjs). Every figure, list and row the page shows
// is `spate-planner diff-rules --json`'s of the same snapshot and scenario; the header names the
// rules the store shows; the review document carries the side by side as `spate-planner report
// --compare-rules`, byte for byte. Every page is checked by axe-core and for console errors and
// CSP violations.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, withServedPage, ready, cli, message, outputDir, testDist } from './browser.mjs';
import { startNats } from './live-fixture.mjs';
import { storeOfCase } from './rules-fixtures.mjs';
import { unzip } from '../../web/common/shared/zip.js';

let chrome;
let nats;
let dir;
let store824;
let store820;
before(async () => {
  chrome = await launch();
  nats = await startNats();
  await mkdir(outputDir, { recursive: true });
  dir = await mkdtemp(join(tmpdir(), 'spate-upgrade-'));
  store824 = await storeOfCase(nats, dir, 'taken', 'regression-824-taken-over', { elector: true });
  store820 = await storeOfCase(nats, dir, 'batch', 'regression-820-second', { elector: false });
});
after(async () => {
  await chrome?.close();
  await nats?.stop();
});

async function cliJson(args) {
  const r = await cli(args);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

const rulesLine = (page) => page.locator('.rules-line').evaluate((n) => ({ text: n.textContent, rules: n.dataset.rules, source: n.dataset.rulesSource }));

/** Opens the Upgrade tab and waits for the side by side of the plan shown. */
async function openUpgrade(page) {
  await page.locator('.tab[data-tab="upgrade"]').click();
  await page.waitForSelector('.upgrade[data-has-result="true"] .upgrade-result', { timeout: 60000 });
}

/** What the Upgrade tab shows: each figure's values by side, the lists, the rows placed apart. */
function shown(page) {
  return page.evaluate(() => {
    const root = document.querySelector('spate-planner').shadowRoot.querySelector('.upgrade');
    const figures = {};
    for (const tr of root.querySelectorAll('tr[data-figure]')) {
      figures[tr.dataset.figure] = Object.fromEntries([...tr.querySelectorAll('td')].map((td) => [td.dataset.side, td.dataset.value]));
    }
    const list = (key) => [...root.querySelectorAll(`[data-list="${key}"] li`)].map((li) => li.textContent);
    const apart = [...root.querySelectorAll('.upgrade-splits tbody tr')].map((tr) => [...tr.cells].map((c) => c.textContent));
    const heads = [...root.querySelectorAll('th[data-side]')].map((th) => th.textContent);
    const today = root.querySelector('.upgrade-today');
    return { figures, kept03: list('kept_only_by_0_3'), kept01: list('kept_only_by_0_1'), apart, heads, today: today.textContent };
  });
}

/** The same, from `spate-planner diff-rules --json`'s document. */
function expected(d) {
  const side = (s) => ({
    moves: s.churn.moves, weight_moved: s.churn.weight_moved, reassigned: s.reassigned, weight_reassigned: s.weight_reassigned,
    queued: s.queued, max_load: s.max_load, max_over_mean: s.max_over_mean, improving_moves: s.improving_moves, bound_hit: s.bound_hit,
  });
  const figures = {};
  for (const [k, v] of Object.entries(side(d.v0_1))) figures[k] = { v0_1: String(v), v0_3: String(side(d.v0_3)[k]) };
  const who = (v) => v ?? '(none)';
  return {
    figures,
    kept03: d.kept_only_by_0_3,
    kept01: d.kept_only_by_0_1,
    apart: d.placed_apart.map((p) => [p.split, who(p.published), who(p.by_0_1), who(p.by_0_3)]),
    today: `Today: ${d.today_note}.`,
  };
}

test('a 0.3.0 store in the #824 situation: detected as 0.3 in the header; the side by side is diff-rules\'', async () => {
  const plan = await cliJson(['plan', store824, '--json']);
  assert.deepEqual([plan.rules, plan.rules_source], ['0.3', 'elector']);
  const d = await cliJson(['diff-rules', store824, '--json']);
  // the lease w2's takeover left behind keeps the split with w1 by 0.1's rules, not by 0.3's
  assert.deepEqual(d.kept_only_by_0_3, ['s']);
  // the test build: a request can be made to fail
  await withServedPage(chrome.browser, ['--dir', testDist, store824], async (page) => {
    assert.deepEqual(await rulesLine(page), { text: `Rules: ${plan.rules_note}`, rules: '0.3', source: 'elector' });
    // a failure reaches the person; looking again asks again
    await page.evaluate(() => document.querySelector('spate-planner').failNextForTest('diffRules'));
    await page.locator('.tab[data-tab="upgrade"]').click();
    await page.waitForFunction(() => /The two releases’ plans could not be made.*diffRules failed \(forced/s.test(document.querySelector('spate-planner').shadowRoot.querySelector('.message')?.textContent || ''));
    assert.equal(await page.locator('.upgrade').getAttribute('data-has-result'), 'false');
    await page.locator('.message button').click();
    assert.equal(await message(page), '');
    await page.locator('.tab[data-tab="moves"]').click();
    await openUpgrade(page);
    const s = await shown(page);
    const { today, ...rest } = expected(d);
    assert.deepEqual({ ...s, heads: undefined, today: undefined }, { ...rest, heads: undefined, today: undefined });
    assert.equal(s.today, today);
    assert.deepEqual(s.heads, ['Spate 0.1 / 0.2', 'Spate 0.3 (today)']);
    assert.deepEqual(s.apart, [['s', 'w2', 'w1', 'w2']]);
  });
});

test('a 0.1 store in the #820 situation: the batch 0.1 moves again is what upgrading keeps; the rules picked follow into the tab and the review document', async () => {
  const plan = await cliJson(['plan', store820, '--json']);
  assert.deepEqual([plan.rules, plan.rules_source], ['0.1', 'no_elector']);
  const d = await cliJson(['diff-rules', store820, '--json']);
  assert.ok(d.kept_only_by_0_3.length >= 7 && d.kept_only_by_0_3.every((id) => id.startsWith('q')), JSON.stringify(d.kept_only_by_0_3));
  assert.equal(d.v0_3.reassigned, 0);
  await withServedPage(chrome.browser, [store820], async (page) => {
    assert.deepEqual(await rulesLine(page), { text: `Rules: ${plan.rules_note}`, rules: '0.1', source: 'no_elector' });
    await openUpgrade(page);
    let s = await shown(page);
    assert.deepEqual({ ...s, heads: undefined }, { ...expected(d), heads: undefined });
    assert.deepEqual(s.heads, ['Spate 0.1 / 0.2 (today)', 'Spate 0.3']);
    await page.screenshot({ path: join(outputDir, 'upgrade.png'), fullPage: true });

    // the what-if panel picks 0.3: the header, the tab's "today" and its figures follow
    const n = await ready(page);
    await page.locator('select[aria-label="decision rules"]').selectOption('0.3');
    await ready(page, n);
    await page.waitForFunction(() => /\(set by the user\)/.test(document.querySelector('spate-planner').shadowRoot.querySelector('.upgrade-today')?.textContent || ''));
    const picked = await cliJson(['diff-rules', store820, '--json', '--rules', '0.3']);
    s = await shown(page);
    assert.deepEqual({ ...s, heads: undefined }, { ...expected(picked), heads: undefined });
    assert.deepEqual(s.heads, ['Spate 0.1 / 0.2', 'Spate 0.3 (today)']);

    // the review document (a zip of the Markdown and its charts): spate-planner report
    // --compare-rules -o's files, byte for byte
    const [dl] = await Promise.all([page.waitForEvent('download'), page.locator('button', { hasText: 'Report (Markdown)' }).click()]);
    const files = unzip(new Uint8Array(await readFile(await dl.path())));
    const md = files.find((f) => f.name.endsWith('.md'));
    const doc = md.text;
    const scenario = join(dir, 'upgrade-scenario.json');
    await writeFile(scenario, await page.evaluate(() => document.querySelector('spate-planner').controller.state.result.text));
    const out = await mkdtemp(join(tmpdir(), 'spate-upgrade-cli-'));
    const r = await cli(['report', store820, '--what-if', scenario, '--compare-rules', '--link', page.url(), '-o', join(out, md.name)]);
    assert.equal(r.status, 0, r.stderr);
    for (const f of files) assert.equal(f.text, await readFile(join(out, f.name), 'utf8'), `${f.name} is the CLI's, byte for byte`);
    assert.match(doc, /## What upgrading changes: Spate 0\.1 and 0\.3 side by side/);
    assert.match(doc, /\| 0\.3 \(today\) \| 9 \(9 B\) \| 0 \(0 B\) \|/);
  });
});
