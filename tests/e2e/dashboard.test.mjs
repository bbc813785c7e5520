// The dashboard in Debian's headless Chromium, served by the real binary (assets embedded):
// every task of the user guide, each page checked by axe-core and for console errors and CSP
// violations.
import { test, before, after } from 'node:test';
import { unzip } from '../../web/common/shared/zip.js';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, launch, watchedPage, outputDir, cli, ready, figure, tile, applyForm, axeViolations, message } from './browser.mjs';

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

async function download(page, buttonText) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.locator('button', { hasText: buttonText }).click()]);
  return { name: dl.suggestedFilename(), bytes: await readFile(await dl.path()) };
}

async function demoSnapshot(name, args) {
  const file = join(work, name);
  const r = await cli(['demo', ...args, '-o', file]);
  assert.equal(r.status, 0, r.stderr);
  return file;
}

test('the demo fleet renders the answer first: summary strip, findings, default cap, chart, moves', async () => {
  await withServer([], async (server) => {
    const { page, problems } = await watchedPage(chrome.browser);
    const resp = await page.goto(server.url);
    assert.match(resp.headers()['content-security-policy'], /script-src 'self' 'wasm-unsafe-eval'/);
    await ready(page);
    assert.equal(await figure(page, 'members'), '24');
    assert.equal(await page.locator('.chart button[data-member]').count(), 24);
    assert.match(await page.locator('.source').textContent(), /job demo \(the built-in demo fleet\)/);
    // the heaviest member now, its ratio to the mean, and the rest of the strip
    assert.match(await tile(page, 'worst'), /^35\.0 GiB → \d+\.\d GiB$/);
    assert.match(await page.locator('.tile[data-tile="worst"] .sub').textContent(), /^worker-04: 2\.031× → 0\.999× the mean$/);
    assert.match(await tile(page, 'balance'), /^2\.\d{3} → 1\.\d{3}$/);
    assert.match(await page.locator('.tile[data-tile="balance"]').getAttribute('title'), /1\.000 means every member carries the same/);
    // the default cap and where it comes from; the leader's withheld departure as a notice
    assert.match(await page.locator('.cap-line').textContent(), /Default cap \d+ — the leader's own max_in_flight/);
    assert.match(await page.locator('.finding[data-code="departed_withheld"]').textContent(), /worker-gone-7f3a/);
    assert.match(await page.locator('.vstatus').textContent(), /\d+ rows/);
    // the over-the-mean part and the lanes-full badge are separate encodings
    assert.ok(await page.locator('.chart .bar.planned.over, .chart .bar.now.over').count() > 0);
    assert.deepEqual(await axeViolations(page), []);
    await page.screenshot({ path: join(outputDir, 'dashboard-demo.png'), fullPage: true });
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(problems, []);
    await page.close();
  });
});

test('serve job.json opens that snapshot at /, and the link names the snapshot it was made on', async () => {
  const snap = await demoSnapshot('opened.json', ['--splits', '300', '--members', '6', '--job', 'opened', '--seed', '5']);
  await withServer([snap], async (server) => {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    const { page, problems } = await watchedPage(chrome.browser);
    await page.goto(server.url);
    let n = await ready(page);
    // the header names the file served (serve passes its name), not the URL it is served at
    assert.match(await page.locator('.source').textContent(), /job opened \(opened\.json\)/);
    assert.equal(await page.locator('.chart button[data-member]').count(), 6);
    await applyForm(page, 'add', { 'new member name': 'w-extra' });
    n = await ready(page, n);
    const hash = new URLSearchParams(new URL(page.url()).hash.slice(1));
    assert.match(hash.get('snapshot'), /^opened@\d+$/);
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(problems, []);
    await page.close();
  });
});

test('a snapshot file dropped on the page, picked, or pasted replaces the fleet', async () => {
  const file = await demoSnapshot('dropped.json', ['--splits', '300', '--members', '5', '--job', 'dropped', '--seed', '9']);
  const text = await readFile(file, 'utf8');
  await withServer([], async (server) => {
    const { page, problems } = await watchedPage(chrome.browser);
    await page.goto(server.url);
    let n = await ready(page);
    await page.evaluate(async (content) => {
      const dt = new DataTransfer();
      dt.items.add(new File([content], 'dropped.json', { type: 'application/json' }));
      const target = document.querySelector('spate-planner').shadowRoot.querySelector('.planner');
      target.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, text);
    n = await ready(page, n);
    assert.match(await page.locator('.source').textContent(), /job dropped \(dropped\.json\)/);
    assert.equal(await figure(page, 'members'), '5');
    assert.match(await page.locator('.summary .status').textContent(), /^Loaded dropped\.json: job dropped, 5 members, 300 splits\./);
    await page.goto(server.url);
    n = await ready(page);
    await page.locator('input[type=file]').setInputFiles(file);
    n = await ready(page, n);
    assert.equal(await page.locator('.chart button[data-member]').count(), 5);
    await page.locator('button', { hasText: 'Demo fleet' }).click();
    n = await ready(page, n);
    assert.equal(await figure(page, 'members'), '24');
    await page.locator('button', { hasText: 'Paste…' }).click();
    await page.locator('textarea[aria-label="snapshot text"]').fill(text);
    await page.locator('button', { hasText: 'Load pasted snapshot' }).click();
    await ready(page, n);
    assert.equal(await figure(page, 'members'), '5');
    assert.match(await page.locator('.source').textContent(), /job dropped \(pasted\)/);
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(problems, []);
    await page.close();
  });
});

test('adding a member plans exactly as `spate-planner plan --what-if`; the link reproduces the view; undo returns', async () => {
  const snap = await demoSnapshot('fleet.json', ['--splits', '1500', '--members', '12', '--job', 'whatif']);
  await withServer([snap], async (server) => {
    const { page, problems } = await watchedPage(chrome.browser);
    await page.goto(server.url);
    let n = await ready(page);
    const movesBefore = await tile(page, 'moves');
    await applyForm(page, 'add', { 'new member name': 'worker-new', 'new member cap': '40' });
    n = await ready(page, n);
    assert.equal(await page.locator('.chart button[data-member]').count(), 13);
    assert.notEqual(await tile(page, 'moves'), movesBefore);
    assert.match(await page.locator('.tile[data-tile="moves"] .sub').textContent(), new RegExp(`baseline ${movesBefore}$`));
    assert.equal(await page.locator('.figures-table th', { hasText: 'what-if' }).count(), 1);
    const url = page.url();
    const scenario = new URLSearchParams(new URL(url).hash.slice(1)).get('scenario');
    const scenarioFile = join(work, 'scenario.json');
    await writeFile(scenarioFile, scenario);
    const r = await cli(['plan', snap, '--json', '--what-if', scenarioFile]);
    assert.equal(r.status, 0, r.stderr);
    const fromPage = (await download(page, 'Plan JSON')).bytes.toString('utf8');
    assert.equal(fromPage, r.stdout.trim());
    assert.ok(JSON.parse(r.stdout).report.members.find((m) => m.name === 'worker-new').gained > 0);
    // a fresh page on the same link shows the same view
    const figures = await page.locator('.figures-table').textContent();
    const other = await watchedPage(chrome.browser);
    await other.page.goto(url);
    await ready(other.page);
    assert.equal(await other.page.locator('.figures-table').textContent(), figures);
    assert.match(await other.page.locator('ol.changes').textContent(), /add member worker-new \(cap 40\)/);
    await page.locator('button', { hasText: 'Undo last change' }).click();
    await ready(page, n);
    assert.equal(await page.locator('.chart button[data-member]').count(), 12);
    assert.equal(new URL(page.url()).hash, '');
    assert.deepEqual([...problems, ...other.problems], []);
    await other.page.close();
    await page.close();
  });
});

test('a refused change is explained at its form and not added; later changes still apply', async () => {
  await withServer([], async (server) => {
    const { page, problems } = await watchedPage(chrome.browser);
    await page.goto(server.url);
    let n = await ready(page);
    await applyForm(page, 'add', { 'new member name': 'worker-01' });
    await page.waitForFunction(() => document.querySelector('spate-planner').shadowRoot.querySelector('form[data-form="add"] .form-error').textContent !== '');
    assert.match(await page.locator('form[data-form="add"] .form-error').textContent(), /Not added: .*"worker-01" is already a member \(duplicate_member\)/);
    assert.equal(await page.locator('ol.changes li[data-change]').count(), 0);
    await applyForm(page, 'weight', { 'split whose weight to change': 'part-000017', 'new weight': '6GiB' });
    n = await ready(page, n);
    assert.match(await page.locator('ol.changes').textContent(), /weight of part-000017: 6\.00 GiB/);
    // only members of the current scenario are offered
    await applyForm(page, 'remove', { 'member to remove': 'worker-02', 'how the member leaves': 'graceful' });
    n = await ready(page, n);
    assert.equal(await page.locator('select[aria-label="member to remove"] option[value="worker-02"]').count(), 0);
    assert.match(await page.locator('ol.changes').textContent(), /remove worker-02: stopped gracefully/);
    const scenario = JSON.parse(new URLSearchParams(new URL(page.url()).hash.slice(1)).get('scenario'));
    assert.deepEqual(scenario.changes[1], { op: 'remove_member', member: 'worker-02', departure: 'graceful' });
    assert.equal(scenario.changes[0].weight, '6442450944');
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(problems, []);
    await page.close();
  });
});

test('the departed checkbox starts checked; unchecking adds release_departed and frees the splits', async () => {
  await withServer([], async (server) => {
    const { page, problems } = await watchedPage(chrome.browser);
    await page.goto(server.url);
    let n = await ready(page);
    const box = page.locator('li[data-departed="worker-gone-7f3a"] input[type=checkbox]');
    assert.equal(await box.isChecked(), true);
    const reservedBefore = await figure(page, 'reserved (withheld)');
    await box.uncheck();
    n = await ready(page, n);
    assert.equal(await box.isChecked(), false);
    assert.match(await page.locator('ol.changes').textContent(), /release the splits withheld for worker-gone-7f3a/);
    assert.notEqual(await figure(page, 'reserved (withheld)'), reservedBefore);
    assert.match(await page.locator('li[data-departed="worker-gone-7f3a"]').textContent(), /released: its splits move now/);
    await box.check();
    await ready(page, n);
    assert.equal(await page.locator('ol.changes li[data-change]').count(), 0);
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(problems, []);
    await page.close();
  });
});

test('the chart: tooltips, click to filter moves, splits and claims; natural order; sort by change', async () => {
  await withServer([], async (server) => {
    const { page, problems } = await watchedPage(chrome.browser);
    await page.goto(server.url);
    let n = await ready(page);
    const names = await page.locator('.chart button[data-member]').evaluateAll((bs) => bs.map((b) => b.dataset.member));
    assert.deepEqual(names.slice(0, 3), ['worker-00', 'worker-01', 'worker-02']);
    await page.locator('.chart button[data-member="worker-04"]').hover();
    assert.match(await page.locator('.tooltip').textContent(), /^worker-04now 35\.0 GiB \(37,618,476,721 bytes\), 2\.031× the mean nowplanned 20\.6 GiB \(22,157,136,811 bytes\), 0\.999× the planned mean/);
    await page.locator('.chart button[data-member="worker-04"]').focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => !document.querySelector('spate-planner').shadowRoot.querySelector('.moves .focus-chip').hidden);
    assert.equal(await page.locator('.chart button[data-member="worker-04"]').getAttribute('aria-pressed'), 'true');
    await page.waitForFunction(() => /\d+ rows/.test(document.querySelector('spate-planner').shadowRoot.querySelector('.vstatus').textContent));
    const froms = await page.locator('.moves tbody tr:not(.spacer)').evaluateAll((rows) => rows.map((r) => `${r.cells[2].textContent}>${r.cells[3].textContent}`));
    assert.ok(froms.length > 0 && froms.every((f) => f.split('>').includes('worker-04')), froms.join(' '));
    await page.locator('.tab[data-tab="splits"]').click();
    await page.waitForFunction(() => /match/.test(document.querySelector('spate-planner').shadowRoot.querySelector('.splits .count').textContent));
    const owners = await page.locator('.splits tbody tr').evaluateAll((rows) => rows.map((r) => `${r.cells[2].textContent}|${r.cells[3].textContent}`));
    assert.ok(owners.length > 0 && owners.every((o) => o.includes('worker-04')), owners.join(' '));
    await page.locator('.tab[data-tab="claims"]').click();
    await page.waitForSelector('.claims [data-ready]');
    assert.deepEqual(await page.locator('.claims .worker').evaluateAll((ws) => ws.map((w) => w.dataset.worker)), ['worker-04']);
    await page.locator('select[aria-label="Order the members by"]').selectOption('change');
    // the link holds the order (and the tab and member shown)
    await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('order') === 'change');
    const byChange = await page.locator('.chart button[data-member]').evaluateAll((bs) => bs.map((b) => b.dataset.member));
    assert.notDeepEqual(byChange, names);
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(problems, []);
    await page.close();
  });
});

test('exports: Markdown report and chart SVG/PNG carry the title, job and scenario', async () => {
  await withServer([], async (server) => {
    const { page, problems } = await watchedPage(chrome.browser);
    await page.goto(server.url);
    let n = await ready(page);
    await applyForm(page, 'add', { 'new member name': 'w|pipe' });
    n = await ready(page, n);
    // the core's review document: the scenario as given, every member (a | kept inside its cell)
    const report = await download(page, 'Report (Markdown)');
    assert.equal(report.name, 'spate-review-demo-whatif.zip');
    const md = unzip(new Uint8Array(report.bytes)).find((f) => f.name === 'spate-review-demo-whatif.md').text;
    assert.match(md, /^# Plan review: job `demo`/);
    assert.match(md, /"op":"add_member","member":"w\|pipe"/);
    assert.match(md, /\n\| `w\\\|pipe` \| /);
    assert.match(md, /\| max \/ mean \|/);
    assert.match(md, /## Summary\n\n- heaviest now: `worker-04`/);
    const svg = await download(page, 'Chart SVG');
    assert.match(svg.name, /^spate-plan-demo-whatif\.svg$/);
    const text = svg.bytes.toString();
    assert.match(text, /^<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.match(text, /Fleet of job demo: load now and planned/);
    assert.match(text, /scenario: add member w\|pipe \(default cap\)/);
    const png = await download(page, 'Chart PNG');
    assert.deepEqual([...png.bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    assert.ok(png.bytes.length > 5000);
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(problems, []);
    await page.close();
  });
});

test('split search by id and by owner, claims of every live member, convergence', async () => {
  await withServer([], async (server) => {
    const { page, problems } = await watchedPage(chrome.browser);
    await page.goto(server.url);
    await ready(page);
    await page.locator('.tab[data-tab="splits"]').click();
    await page.locator('input[aria-label="search splits"]').fill('part-00001');
    await page.waitForFunction(() => /^\d+ match/.test(document.querySelector('spate-planner').shadowRoot.querySelector('.splits .count').textContent));
    const ids = await page.locator('.splits tbody td:first-child').allTextContents();
    assert.ok(ids.length > 0 && ids.every((id) => id.includes('part-00001')), ids.join(','));
    await page.locator('input[aria-label="search splits"]').fill('worker-gone-7f3a');
    await page.waitForFunction(() => [...document.querySelector('spate-planner').shadowRoot.querySelectorAll('.splits tbody tr')].some((r) => r.cells[2].textContent === 'worker-gone-7f3a'));
    await page.locator('.tab[data-tab="claims"]').click();
    await page.waitForSelector('.claims [data-ready]');
    // the demo's published records give nobody anything to do: the tab opens on the plan, saying why
    const source = page.locator('select[aria-label="assignment the workers act on"]');
    assert.equal(await source.inputValue(), 'plan');
    assert.match(await page.locator('.claims-summary').textContent(), /24 live members, [1-9][\d,]* actions \(acting on the plan/);
    assert.match(await page.locator('.claims-opened').textContent(), /^The published records give no member anything to do/);
    // every live member: a card each for those that act, a row of the folded line for the others
    assert.equal(await page.locator('.claims [data-worker]').count(), 24);
    const idle = page.locator('.idle-workers');
    assert.equal(await page.locator('.claims .worker').count() + (await idle.count() ? Number(await idle.getAttribute('data-count')) : 0), 24);
    await source.selectOption('published');
    await page.waitForFunction(() => /acting on the published records/.test(document.querySelector('spate-planner').shadowRoot.querySelector('.claims-summary').textContent));
    assert.match(await page.locator('.claims-summary').textContent(), /^24 live members, 0 actions \(acting on the published records; max_attempts 4\)/);
    assert.equal(Number(await page.locator('.idle-workers').getAttribute('data-count')), 24);
    await page.locator('.tab[data-tab="convergence"]').click();
    await page.locator('button', { hasText: 'Run rounds' }).click();
    await page.waitForSelector('.convergence [data-rounds]');
    assert.match(await page.locator('.convergence .verdict').textContent(), /Converged: round \d+ moves nothing/);
    assert.equal(await page.locator('svg.rounds-chart').count(), 1);
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(problems, []);
    await page.close();
  });
});

test('a fleet whose leader publishes nothing says that the current assignments stand', async () => {
  const file = await demoSnapshot('noplan.json', ['--splits', '100', '--members', '4', '--job', 'noplan']);
  const doc = JSON.parse(await readFile(file, 'utf8'));
  doc.state.entries = doc.state.entries.filter((e) => e.key !== 'plan');
  await writeFile(file, JSON.stringify(doc));
  await withServer([file], async (server) => {
    const { page, problems } = await watchedPage(chrome.browser);
    await page.goto(server.url);
    await ready(page);
    assert.equal(await tile(page, 'published'), 'nothing');
    assert.match(await page.locator('.tile[data-tile="published"] .sub').textContent(), /the current assignments stand/);
    assert.match(await page.locator('.finding[data-code="no_publish"]').textContent(), /the current assignments stand/);
    assert.equal(await message(page), '');
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(problems, []);
    await page.close();
  });
});

test('the chart\'s tooltip: a scroll under a mouse at rest closes it and opens none; moving the mouse opens the row\'s', async () => {
  await withServer([], async (server) => {
    const { page, problems } = await watchedPage(chrome.browser, { width: 1400, height: 700 });
    await page.goto(server.url);
    await ready(page);
    const tip = () => page.evaluate(() => {
      const t = document.querySelector('spate-planner').shadowRoot.querySelector('.fleet .tooltip');
      return t && !t.hidden ? t.querySelector('strong').textContent : null;
    });
    await page.locator('.chart button[data-member="worker-04"]').hover();
    assert.equal(await tip(), 'worker-04');
    const box = await page.locator('.chart button[data-member="worker-04"]').boundingBox();
    // the wheel scrolls the page: other rows pass under the resting mouse
    for (let i = 0; i < 4; i++) {
      await page.mouse.wheel(0, 60);
      await page.waitForTimeout(150);
    }
    await page.waitForTimeout(300);
    assert.equal(await tip(), null, 'no tooltip opened by the scroll');
    // the mouse moves: the row under it shows its figures
    await page.mouse.move(box.x + 40, box.y + box.height / 2 + 3);
    const under = await page.evaluate(([x, y]) => document.querySelector('spate-planner').shadowRoot.elementFromPoint(x, y)?.closest('button[data-member]')?.dataset.member, [box.x + 40, box.y + box.height / 2 + 3]);
    assert.ok(under && under !== 'worker-04', `another row is under the mouse after the scroll: ${under}`);
    await page.waitForFunction((m) => document.querySelector('spate-planner').shadowRoot.querySelector('.fleet .tooltip strong')?.textContent === m, under, { timeout: 5000 });
    assert.deepEqual(problems, []);
    await page.close();
  });
});
