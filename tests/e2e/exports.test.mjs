// Issue 20's review exports in Debian's headless Chromium, served by the real binary: the printed
// page (print media, and the PDF read back by pdftotext) holds every member of a 201-member
// fleet, no hint for a pointer or a keyboard, every warning's keys and no empty section; the
// tables as CSV are the command line's `--csv` bytes and parse to its `--json` documents; the
// chart exports are sized for a slide, with a complete legend and named columns, or hold every
// member; the scenario file plans on the command line exactly as the page; the Timeline's
// scripts and the commands copied. Every page is checked by axe-core and for console errors and
// CSP violations.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, withServedPage, ready, cli, applyForm, outputDir, timelineDrawn } from './browser.mjs';
import { demo, laterSnapshot, planOf } from './review-fixtures.mjs';

let chrome;
let work;
let big;
let small;
before(async () => {
  chrome = await launch();
  await mkdir(outputDir, { recursive: true });
  work = await mkdtemp(join(tmpdir(), 'spate-exports-'));
  // 201 members (worker-00 … worker-200), 200 of them without a spec warning
  big = await demo(work, 'big.json', ['--splits', '8000', '--members', '201', '--job', 'big']);
  small = await demo(work, 'small.json', ['--splits', '1500', '--members', '12', '--job', 'exp']);
});
after(async () => { await chrome?.close(); });

const withPage = (args, options, fn) => withServedPage(chrome.browser, args, fn, options);

async function download(page, locator) {
  const [dl] = await Promise.all([page.waitForEvent('download'), locator.click()]);
  return { name: dl.suggestedFilename(), text: (await readFile(await dl.path())).toString('utf8'), bytes: await readFile(await dl.path()) };
}

const members = (page) => page.evaluate(() => document.querySelector('spate-planner').controller.state.result.view.report.members.map((m) => m.name));

/** What reads, on paper, as a hint to a pointer, a finger or a keyboard. */
const HINTS = /hover|\btap\b|long-press|press Enter|\bclick\b|arrow keys|Show all|folded|Skip to|Find\b|Type a member|drop a file/i;

test('the printed page: every member of 201, each kind of warning with its first keys, no hint and no empty section (print media and the PDF)', async () => {
  await withPage([big], { width: 1400, height: 900 }, async (page) => {
    const names = await members(page);
    assert.equal(names.length, 201);
    assert.equal(await page.locator('.chart button.member').count() < 201, true, 'the screen folds the chart');
    await page.emulateMedia({ media: 'print' });
    const paper = await page.locator('spate-planner').evaluate(({ shadowRoot: root }) => {
      const planner = root.querySelector('.planner');
      const sections = [...root.querySelectorAll('section')].filter((s) => s.getClientRects().length)
        .map((s) => ({ cls: s.className, text: s.innerText.trim(), heading: s.querySelector('h2')?.innerText.trim() ?? '' }));
      return { text: planner.innerText, sections };
    });
    const rows = paper.text.split('\n').map((l) => l.trim());
    const starts = new Set(rows.map((l) => l.match(/^[\w-]+/)?.[0]));
    assert.deepEqual(names.filter((n) => !starts.has(n)), [], 'every member on paper, a row each');
    assert.doesNotMatch(paper.text, HINTS);
    // each kind of warning: its first five keys, in the order found, and how many more
    const warnings = await page.evaluate(() => document.querySelector('spate-planner').controller.state.info.warnings);
    assert.ok(warnings.length > 50 && warnings.length < 500, `${warnings.length} warnings`);
    const keys = rows.filter((l) => /^bucket \S+, key \S+: /.test(l));
    const byCode = new Map();
    for (const w of warnings) byCode.set(w.code, [...(byCode.get(w.code) ?? []), w]);
    const want = [...byCode.values()].flatMap((ws) => ws.slice(0, 5).map((w) => `bucket ${w.bucket}, key ${w.key}: ${w.message}`));
    assert.deepEqual([...keys].sort(), want.sort());
    for (const [code, ws] of byCode) {
      if (ws.length > 5) assert.ok(rows.includes(`… and ${ws.length - 5} more ${code} keys (the page and spate-planner snapshot --json list every one)`), `${code}: how many more`);
    }
    for (const s of paper.sections) assert.ok(s.text.length > s.heading.length + 10, `the section ${s.cls} is empty on paper: ${JSON.stringify(s.text)}`);
    // the PDF, read back
    await page.emulateMedia({ media: null });
    const pdf = join(work, 'print.pdf');
    await page.pdf({ path: pdf, format: 'A4', printBackground: true });
    const { stdout } = await promisify(execFile)('pdftotext', ['-layout', pdf, '-'], { maxBuffer: 64 << 20 });
    const words = new Set(stdout.split(/\s+/));
    const missing = names.filter((n) => !words.has(n));
    assert.deepEqual(missing, [], 'every member in the PDF');
    assert.doesNotMatch(stdout, HINTS);
    await writeFile(join(outputDir, 'print-201.txt'), stdout);
  });
});

/** The CSV downloaded by the page's button `table` and the command line's, the same bytes. */
async function sameCsv(page, table, args, job = 'exp') {
  const d = await download(page, page.locator(`button[data-csv="${table}"]`));
  assert.equal(d.name, `${job}-${table}.csv`);
  const r = await cli(args);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(d.text, r.stdout, `${table}: the page's CSV is the command line's`);
  return d.text;
}

/** The records of an RFC 4180 text. */
function records(text) {
  const out = [];
  let rec = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i++; } else if (c === '"') quoted = false; else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') { rec.push(field); field = ''; } else if (c === '\r' && text[i + 1] === '\n') { rec.push(field); out.push(rec); rec = []; field = ''; i++; } else field += c;
  }
  return out;
}

/** A JSON value as its CSV field must read: a string as it is (a formula guarded), nothing for null. */
const cellOf = (v) => (v === null || v === undefined ? '' : typeof v === 'string' ? (/^[=+\-@\t\r]/.test(v) ? `'${v}` : v) : String(v));

/**
 * The CSV's records equal the JSON rows read in its header's columns (a JSON number: the same
 * number, however it is written; 64-bit integers are strings in the JSON, so exact).
 */
function sameRows(csv, rows) {
  const [head, ...recs] = records(csv);
  assert.equal(recs.length, rows.length);
  recs.forEach((rec, i) => {
    const want = head.map((h) => cellOf(rows[i][h]));
    const got = rec.map((c, j) => (typeof rows[i][head[j]] === 'number' && Number(c) === rows[i][head[j]] ? want[j] : c));
    assert.deepEqual(got, want, JSON.stringify(rows[i]));
  });
}

test('CSV of every table: the command line\'s --csv bytes, and its --json documents\' rows', async () => {
  const later = join(work, 'small-later.json');
  await laterSnapshot(small, later, await planOf(small));
  await withPage([later], { width: 1400, height: 900 }, async (page) => {
    let n = Number(await page.getAttribute('spate-planner', 'data-plans'));
    await applyForm(page, 'add', { 'new member name': 'w-csv', 'new member cap': '20' });
    n = await ready(page, n);
    const scenario = join(work, 'csv-scenario.json');
    await writeFile(scenario, new URLSearchParams(new URL(page.url()).hash.slice(1)).get('scenario'));
    const plan = JSON.parse((await cli(['plan', later, '--json', '--what-if', scenario])).stdout);
    await page.locator('.tab[data-tab="moves"]').click();
    sameRows(await sameCsv(page, 'moves', ['plan', later, '--what-if', scenario, '--csv', 'moves']), plan.report.moves);
    const marks = Object.fromEntries(plan.summary.marks.map((m) => [m.name, m]));
    const membersCsv = await sameCsv(page, 'members', ['plan', later, '--what-if', scenario, '--csv', 'members']);
    sameRows(membersCsv, plan.report.members.map((m) => ({ ...m, ...marks[m.name] })));
    await page.locator('.tab[data-tab="splits"]').click();
    const splits = records(await sameCsv(page, 'splits', ['plan', later, '--what-if', scenario, '--csv', 'splits']));
    assert.equal(splits.length - 1, 1500);
    await page.locator('.tab[data-tab="claims"]').click();
    await page.waitForSelector('.claims [data-ready]');
    await page.locator('select[aria-label="assignment the workers act on"]').selectOption('plan');
    const claims = JSON.parse((await cli(['claims', later, '--what-if', scenario, '--after-plan', '--json'])).stdout);
    const actions = [];
    for (const [m, list] of Object.entries(claims.claims)) {
      list.forEach((a, i) => actions.push({ member: m, step: i + 1, split: a.split, action: a.action, kind: a.kind }));
      for (const [what, key] of [['drain', 'drains'], ['fenced', 'fenced']]) for (const id of claims[key][m]) actions.push({ member: m, split: id, action: what });
    }
    assert.ok(actions.length > 0);
    sameRows(await sameCsv(page, 'claims', ['claims', later, '--what-if', scenario, '--after-plan', '--csv']), actions);
    // the sweep (on top of the scenario) and the comparison with the earlier snapshot
    await page.locator('.tab[data-tab="sweep"]').click();
    await page.waitForSelector('.sweep[data-has-result="true"]', { timeout: 60000 });
    const sweep = JSON.parse((await cli(['sweep', later, '--what-if', scenario, '--add-members', '0..8', '--json'])).stdout);
    sameRows(await sameCsv(page, 'sweep', ['sweep', later, '--what-if', scenario, '--add-members', '0..8', '--csv']), sweep.steps);
    await page.locator('.tab[data-tab="compare"]').click();
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.locator('button', { hasText: 'Open earlier snapshot…' }).click()]);
    await chooser.setFiles(small);
    await page.waitForSelector('.compare[data-has-result="true"]', { timeout: 30000 });
    const d = JSON.parse((await cli(['diff', small, later, '--json'])).stdout);
    sameRows(await sameCsv(page, 'compare-members', ['diff', small, later, '--csv', 'members']), d.members);
    sameRows(await sameCsv(page, 'compare-owners', ['diff', small, later, '--csv', 'owners']), d.owner_changes);
  });
});

/** The width and height a PNG's header gives. */
function pngSize(bytes) {
  return { w: bytes.readUInt32BE(16), h: bytes.readUInt32BE(20) };
}

test('the chart exports: a slide of the heaviest 25 with the rest summed up, a complete legend and named columns; or every member', async () => {
  await withPage([big], { width: 1400, height: 900 }, async (page) => {
    const svg = (await download(page, page.locator('button', { hasText: 'Chart SVG' }))).text;
    const drawn = svg.match(/<g data-member="/g).length;
    assert.equal(drawn, 25);
    assert.match(svg, /… and 176 more members, each lighter than those drawn: together /);
    for (const words of ['>member<', '>lanes / cap<', '>planned<', '>load (bytes): thin bar now, thick bar planned<', '>now: the load it holds<', '>over its mean by more than 5%<', '>full: every lane of its cap used<']) assert.ok(svg.includes(words), words);
    const height = Number(svg.match(/^<svg[^>]* height="([\d.]+)"/)[1]);
    assert.ok(height < 750, `a slide's chart is ${height} tall`);
    const png = pngSize((await download(page, page.locator('button', { hasText: 'Chart PNG' }))).bytes);
    assert.deepEqual(png, { w: 2000, h: Math.round(height * 2) });
    await page.locator('label', { hasText: 'Chart SVG and PNG show' }).locator('select').selectOption('0');
    const all = (await download(page, page.locator('button', { hasText: 'Chart SVG' }))).text;
    assert.equal(all.match(/<g data-member="/g).length, 201);
    assert.doesNotMatch(all, /more members, each lighter/);
  });
});

test('the scenario file plans on the command line as the page does; the commands copied name it; the Timeline\'s scripts and their commands', async () => {
  await withPage([small], { width: 1400, height: 900 }, async (page) => {
    await page.evaluate(() => {
      window.copied = [];
      Object.defineProperty(navigator, 'clipboard', { value: { writeText: async (t) => { window.copied.push(t); } } });
    });
    let n = Number(await page.getAttribute('spate-planner', 'data-plans'));
    await applyForm(page, 'remove', { 'member to remove': 'worker-03', 'how the member leaves': 'graceful' });
    n = await ready(page, n);
    const file = await download(page, page.locator('button', { hasText: 'Scenario JSON' }));
    assert.equal(file.name, 'exp-scenario.json');
    const path = join(work, file.name);
    await writeFile(path, file.text);
    const r = await cli(['plan', small, '--what-if', path, '--json']);
    assert.equal(r.status, 0, r.stderr);
    const planJson = await download(page, page.locator('button', { hasText: 'Plan JSON' }));
    assert.equal(planJson.text, r.stdout.trim());
    await page.locator('button', { hasText: /^Copy the command$/ }).click();
    assert.equal((await page.evaluate(() => window.copied)).at(-1), 'spate-planner plan small.json --what-if exp-scenario.json');
    // the Timeline: a crash picked in the chart, B without a rebalance delay
    await page.locator('.chart button[data-member="worker-05"]').click();
    await page.locator('.row-actions button', { hasText: 'Crash at t = 0' }).click();
    await timelineDrawn(page); // (the run, once drawn, is scrolled into view: a click before may miss)
    await page.locator('label', { hasText: 'Compare with a second configuration (B)' }).locator('input').check();
    await page.locator('.tl-json summary').click();
    const a = await download(page, page.locator('button', { hasText: 'Script JSON (A)' }));
    assert.equal(a.name, 'exp-timeline.json');
    assert.equal(a.text.trim(), await page.locator('textarea[aria-label="script of configuration A (JSON)"]').inputValue());
    const b = await download(page, page.locator('button', { hasText: 'Script JSON (B)' }));
    assert.equal(b.name, 'exp-timeline-b.json');
    assert.equal(JSON.parse(b.text).config.rebalance_delay_ms, 0);
    await page.locator('button', { hasText: 'Copy the commands' }).click();
    assert.equal((await page.evaluate(() => window.copied)).at(-1),
      'spate-planner simulate small.json --script exp-timeline.json --json\nspate-planner simulate small.json --script exp-timeline-b.json --json');
    // the command line runs B's file to the figures the page shows for B
    await page.waitForFunction(() => document.querySelector('spate-planner').controller.state.timelineRun?.b?.figures, null, { timeout: 120000 });
    const shown = await page.evaluate(() => document.querySelector('spate-planner').controller.state.timelineRun.b.figures);
    const bPath = join(work, b.name);
    await writeFile(bPath, b.text);
    const sim = await cli(['simulate', small, '--script', bPath, '--json']);
    assert.equal(sim.status, 0, sim.stderr);
    const f = JSON.parse(sim.stdout).figures;
    assert.equal(typeof f.claims, 'number');
    assert.deepEqual([shown.claims, shown.recovery_ms, shown.elections], [f.claims, f.recovery_ms, f.elections]);
  });
});
