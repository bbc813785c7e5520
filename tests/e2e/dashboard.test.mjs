// The dashboard in Debian's headless Chromium, served by the real binary (assets embedded).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, launch, watchedPage, outputDir, cli, ready, plans, figure } from './browser.mjs';

let chrome;
let work;
before(async () => {
  chrome = await launch();
  await mkdir(outputDir, { recursive: true });
  work = await mkdtemp(join(tmpdir(), 'spate-e2e-'));
});
after(async () => { await chrome?.close(); });

async function withServer(args, fn) {
  const server = await startServer(args);
  try { return await fn(server); } finally { server.stop(); }
}

async function downloadText(page, buttonText) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.locator('button', { hasText: buttonText }).click()]);
  return { name: dl.suggestedFilename(), bytes: await readFile(await dl.path()) };
}

test('the demo fleet renders, with figures, bars and moves, and no console error or CSP violation', async () => {
  await withServer([], async (server) => {
    const { page, problems } = await watchedPage(chrome.browser);
    const resp = await page.goto(server.url);
    assert.match(resp.headers()['content-security-policy'], /script-src 'self' 'wasm-unsafe-eval'/);
    await ready(page);
    assert.equal(await figure(page, 'members'), '24');
    assert.equal(await page.locator('svg.fleet-chart g[data-member]').count(), 24);
    assert.match(await page.locator('.vstatus').textContent(), /\d+ rows/);
    assert.match(await page.locator('.source').textContent(), /job demo/);
    await page.screenshot({ path: join(outputDir, 'dashboard-demo.png'), fullPage: true });
    assert.deepEqual(problems, []);
    await page.close();
  });
});

test('a snapshot file dropped on the page, picked, or pasted replaces the fleet', async () => {
  const file = join(work, 'dropped.json');
  const r = await cli(['demo', '--splits', '300', '--members', '5', '--job', 'dropped', '--seed', '9', '-o', file]);
  assert.equal(r.status, 0, r.stderr);
  const text = await readFile(file, 'utf8');
  await withServer([], async (server) => {
    const { page, problems } = await watchedPage(chrome.browser);
    await page.goto(server.url);
    let n = await ready(page);
    // drop
    await page.evaluate(async (content) => {
      const dt = new DataTransfer();
      dt.items.add(new File([content], 'dropped.json', { type: 'application/json' }));
      const target = document.querySelector('spate-planner').shadowRoot.querySelector('.planner');
      target.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, text);
    n = await ready(page, n);
    assert.match(await page.locator('.source').textContent(), /job dropped \(dropped\.json\)/);
    assert.equal(await figure(page, 'members'), '5');
    // the file picker
    await page.goto(server.url);
    n = await ready(page);
    await page.locator('input[type=file]').setInputFiles(file);
    n = await ready(page, n);
    assert.equal(await page.locator('svg.fleet-chart g[data-member]').count(), 5);
    // paste
    await page.locator('button', { hasText: 'Demo fleet' }).click();
    n = await ready(page, n);
    assert.equal(await figure(page, 'members'), '24');
    await page.locator('button', { hasText: 'Paste…' }).click();
    await page.locator('textarea[aria-label="snapshot text"]').fill(text);
    await page.locator('button', { hasText: 'Load pasted snapshot' }).click();
    await ready(page, n);
    assert.equal(await figure(page, 'members'), '5');
    assert.match(await page.locator('.source').textContent(), /job dropped \(pasted\)/);
    assert.deepEqual(problems, []);
    await page.close();
  });
});

test('adding a member changes bars and moves exactly as `spate-planner plan --what-if` says; the link reproduces the view', async () => {
  const snap = join(work, 'fleet.json');
  assert.equal((await cli(['demo', '--splits', '1500', '--members', '12', '--job', 'whatif', '-o', snap])).status, 0);
  await withServer([snap], async (server) => {
    assert.match(server.url, /127\.0\.0\.1/);
    const { page, problems } = await watchedPage(chrome.browser);
    await page.goto(`${server.url}?snapshot=snapshot.json`);
    let n = await ready(page);
    const before = await page.locator('.vstatus').textContent();
    const lanesBefore = await page.locator('svg.fleet-chart g[data-member] text').allTextContents();

    await page.locator('input[aria-label="new member name"]').fill('worker-new');
    await page.locator('input[aria-label="new member cap"]').fill('40');
    await page.locator('form.change', { hasText: 'Add a member' }).locator('button').click();
    n = await ready(page, n);
    assert.equal(await page.locator('svg.fleet-chart g[data-member]').count(), 13);
    assert.equal(await page.locator('svg.fleet-chart g[data-member="worker-new"]').count(), 1);
    assert.notDeepEqual(await page.locator('svg.fleet-chart g[data-member] text').allTextContents(), lanesBefore);
    assert.notEqual(await page.locator('.vstatus').textContent(), before);
    assert.equal(await page.locator('.figures-table th', { hasText: 'what-if' }).count(), 1);

    // The scenario lives in the URL; the CLI plans the same snapshot with it.
    const url = page.url();
    const scenario = new URLSearchParams(new URL(url).hash.slice(1)).get('scenario');
    assert.ok(scenario.includes('worker-new'), url);
    const scenarioFile = join(work, 'scenario.json');
    await writeFile(scenarioFile, scenario);
    const r = await cli(['plan', snap, '--json', '--what-if', scenarioFile]);
    assert.equal(r.status, 0, r.stderr);
    const fromCli = JSON.parse(r.stdout);
    const fromPage = JSON.parse((await downloadText(page, 'Plan JSON')).bytes.toString('utf8'));
    assert.deepEqual(fromPage.assignment, fromCli.assignment);
    const moved = (doc) => doc.report.moves.map((m) => `${m.split}:${m.from}->${m.to}`).sort();
    assert.deepEqual(moved(fromPage), moved(fromCli));
    assert.ok(fromCli.report.members.find((m) => m.name === 'worker-new').gained > 0);
    // The raw text is identical too (exact integers, same document).
    assert.equal((await downloadText(page, 'Plan JSON')).bytes.toString('utf8'), r.stdout.trim());

    // The permalink: a fresh page on the same URL shows the same view.
    const figures = await page.locator('.figures-table').textContent();
    const page2 = (await watchedPage(chrome.browser));
    await page2.page.goto(url);
    await ready(page2.page);
    assert.equal(await page2.page.locator('.figures-table').textContent(), figures);
    assert.match(await page2.page.locator('ol.changes').textContent(), /add member worker-new \(cap 40\)/);

    // Undo returns to the baseline.
    await page.locator('button', { hasText: 'Undo last change' }).click();
    await ready(page, n);
    assert.equal(await page.locator('svg.fleet-chart g[data-member]').count(), 12);
    assert.equal(new URL(page.url()).hash, '');
    await page.screenshot({ path: join(outputDir, 'dashboard-whatif.png'), fullPage: true });
    assert.deepEqual([...problems, ...page2.problems], []);
    await page2.page.close();
    await page.close();
  });
});

test('exports: Markdown report, chart SVG and PNG', async () => {
  await withServer([], async (server) => {
    const { page, problems } = await watchedPage(chrome.browser);
    await page.goto(server.url);
    await ready(page);
    const md = await downloadText(page, 'Report (Markdown)');
    assert.match(md.name, /\.md$/);
    assert.match(md.bytes.toString(), /# Plan for job ` demo `/);
    assert.match(md.bytes.toString(), /\| max \/ mean \|/);
    const svg = await downloadText(page, 'Chart SVG');
    assert.match(svg.bytes.toString(), /^<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    const png = await downloadText(page, 'Chart PNG');
    assert.deepEqual([...png.bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    assert.ok(png.bytes.length > 5000);
    assert.deepEqual(problems, []);
    await page.close();
  });
});

test('split search, claims and convergence answer from the core', async () => {
  await withServer([], async (server) => {
    const { page, problems } = await watchedPage(chrome.browser);
    await page.goto(server.url);
    await ready(page);
    await page.locator('input[aria-label="search splits"]').fill('part-00001');
    await page.waitForFunction(() => /match/.test(document.querySelector('spate-planner').shadowRoot.querySelector('.splits .hint')?.textContent || ''));
    const ids = await page.locator('.splits table.data td:first-child').allTextContents();
    assert.ok(ids.length > 0 && ids.every((id) => id.includes('part-00001')), ids.join(','));
    await page.locator('.claims select').selectOption('worker-gone-7f3a');
    await page.waitForFunction(() => /candidate/.test(document.querySelector('spate-planner').shadowRoot.querySelector('.claims .hint')?.textContent || ''));
    await page.locator('button', { hasText: 'Run rounds' }).click();
    await page.waitForSelector('.convergence [data-rounds]');
    assert.match(await page.locator('.convergence .hint').last().textContent(), /Converged: round \d+ moves nothing/);
    assert.equal(await page.locator('svg.rounds-chart').count(), 1);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
