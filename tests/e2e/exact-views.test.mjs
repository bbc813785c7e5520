// Every view shows only the core's numbers (issue 19): in Debian's headless Chromium against the
// real binary, each number in the visible text of the chart's tooltips, Moves, Details, Compare,
// Claims, Sweep and Convergence is a number of the document the command line prints for that
// view on the same snapshot (`plan`, `claims`, `diff`, `sweep`, `converge --json`), written only
// in the page's documented ways (tests/e2e/core-numbers.mjs). The check fails on a number the
// document does not hold: shown on a view whose text was changed on purpose. (The Timeline is
// not checked yet.)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, launch, watchedPage, ready, cli, axeViolations } from './browser.mjs';
import { demo, withoutCaps, laterSnapshot } from './review-fixtures.mjs';
import { coreNumbers, foreignNumbers, numbersOf, visibleText } from './core-numbers.mjs';

let chrome;
let dir;
let fleet;
let later;
/** A what-if: one member added, one leaving gracefully. */
const WHAT_IF = { format: 'spate-planner-scenario/1', changes: [{ op: 'add_member', member: 'w-extra', cap: 40 }, { op: 'remove_member', member: 'worker-03', departure: 'graceful' }] };
let whatIf;

async function cliJson(args) {
  const r = await cli(args);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

before(async () => {
  chrome = await launch();
  dir = await mkdtemp(join(tmpdir(), 'spate-exact-views-'));
  // two members without a cap of their own, so the leader's default cap matters
  fleet = await withoutCaps(await demo(dir, 'fleet.json', ['--splits', '1500', '--members', '12', '--job', 'views', '--seed', '5']), ['worker-01', 'worker-02']);
  later = join(dir, 'later.json');
  await laterSnapshot(fleet, later, await cliJson(['plan', fleet, '--json']));
  whatIf = join(dir, 'what-if.json');
  await writeFile(whatIf, JSON.stringify(WHAT_IF));
});
after(async () => { await chrome?.close(); });

async function withPage(serverArgs, fn, hash = '') {
  const server = await startServer(serverArgs);
  const { page, problems } = await watchedPage(chrome.browser, { width: 1400, height: 1000 });
  try {
    await page.goto(`${server.url}${hash}`);
    await ready(page, 0, 60000);
    await fn(page);
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
    server.stop();
  }
}

/** Asserts that every number of `selector`'s visible text is one of `docs`' ; returns the text. */
async function onlyCoreNumbers(page, view, selector, ...docs) {
  const text = await visibleText(page, selector);
  assert.ok(numbersOf(text).length > 0, `${view} shows numbers to check:\n${text}`);
  assert.deepEqual(foreignNumbers(text, coreNumbers(...docs)), [], `${view} shows numbers its core document does not hold:\n${text}`);
  return text;
}

const tab = (page, key) => page.locator(`.tab[data-tab="${key}"]`).click();

test('the check itself: a number the document does not hold is found, written any other way than the documented ones', () => {
  const doc = { report: { members: [{ name: 'worker-10', load_now: '1610612736', load_change: '-536870912', lanes: 3 }] }, summary: { max_over_mean: '1.0234' }, taken_at_ms: '1767225600000' };
  const allowed = coreNumbers(doc);
  assert.deepEqual(foreignNumbers('worker-10: now 1.50 GiB (1,610,612,736 bytes), change −512 MiB, lanes 3, max/mean 1.0234, taken 2026-01-01 00:00:00 UTC', allowed), []);
  // a load computed otherwise, the change's sign turned round, a ratio rounded again, a count not in it
  assert.deepEqual(foreignNumbers('now 1.51 GiB, change +512 MiB, max/mean 1.023, lanes 4', allowed), ['1.51 GiB', '+512 MiB', '1.023', '4']);
});

test('tooltips, Moves and Details on a what-if: every number is plan --what-if --json\'s (and the baseline\'s in Details)', async () => {
  const plan = await cliJson(['plan', fleet, '--what-if', whatIf, '--json']);
  const base = await cliJson(['plan', fleet, '--json']);
  const link = `#scenario=${encodeURIComponent(JSON.stringify(WHAT_IF))}`;
  await withPage([fleet], async (page) => {
    // the chart's tooltip of every member (shown on keyboard focus)
    const members = plan.report.members.map((m) => m.name);
    assert.equal(members.length, 12, 'twelve members: one left gracefully, one joined');
    for (const name of members) {
      await page.locator(`.chart button[data-member="${name}"]`).focus();
      await page.waitForSelector('.tooltip:not([hidden])');
      const text = await onlyCoreNumbers(page, `the tooltip of ${name}`, '.tooltip', plan);
      assert.match(text, new RegExp(`^${name}\\n`), 'the tooltip shown is the member\'s');
    }
    // Moves, as it opens (heaviest first) and by relief (the improving moves' core figures)
    await tab(page, 'moves');
    await page.waitForFunction(() => document.querySelector('spate-planner').shadowRoot.querySelector('.moves .vstatus')?.textContent.endsWith('rows'));
    let text = await onlyCoreNumbers(page, 'Moves', '.moves', plan);
    assert.match(text, new RegExp(`^${plan.summary.moves.toLocaleString('en')} rows$`, 'm'));
    await page.locator('.moves th[data-key="relief"] button').click();
    await page.waitForFunction(() => document.querySelector('spate-planner').shadowRoot.querySelector('.moves th[data-key="relief"]').getAttribute('aria-sort') === 'descending');
    assert.ok(plan.report.moves.some((m) => m.relief !== null), 'the what-if makes improving moves');
    await page.waitForFunction(() => document.querySelector('spate-planner').shadowRoot.querySelector('.moves tbody tr:not(.spacer) td:nth-child(6)')?.textContent !== '');
    text = await onlyCoreNumbers(page, 'Moves by relief', '.moves', plan);
    const reliefs = plan.report.moves.filter((m) => m.relief !== null).map((m) => m.relief);
    assert.ok(reliefs.length > 0);
    // the reasons in the core's words
    for (const r of new Set(plan.report.moves.slice(0, 5).map((m) => m.reason))) assert.ok(plan.reasons.some((w) => w.reason === r));
    // Details: the what-if and its baseline side by side
    await tab(page, 'details');
    text = await onlyCoreNumbers(page, 'Details', '.details', plan, base);
    assert.match(text, /4096-move bound/);
  }, link);
});

test('Claims: every number is claims --json\'s (the published records give nothing to do here: the tab shows the plan\'s, claims --after-plan)', async () => {
  const published = await cliJson(['claims', fleet, '--json']);
  assert.equal(published.totals.actions, 0, 'the fixture\'s workers hold what the published records name');
  const doc = await cliJson(['claims', fleet, '--after-plan', '--json']);
  await withPage([fleet], async (page) => {
    await tab(page, 'claims');
    await page.waitForSelector('.claims [data-ready="true"]');
    assert.equal(await page.locator('select[aria-label="assignment the workers act on"]').inputValue(), 'plan');
    const text = await onlyCoreNumbers(page, 'Claims', '.claims', doc);
    assert.match(text, new RegExp(`${doc.totals.members} live members, ${doc.totals.actions.toLocaleString('en')} action`));
  });
});

test('Convergence: every number is converge --json\'s', async () => {
  const doc = await cliJson(['converge', fleet, '--json']);
  await withPage([fleet], async (page) => {
    await tab(page, 'convergence');
    await page.locator('button', { hasText: 'Run rounds' }).click();
    await page.waitForSelector('.convergence [data-rounds]');
    const text = await onlyCoreNumbers(page, 'Convergence', '.convergence', doc);
    assert.ok(text.includes(doc.verdict), text);
  });
});

test('Sweep, with a crash of each step\'s heaviest member: every number is sweep --json\'s, and today\'s step is the one it marks', async () => {
  const doc = await cliJson(['sweep', fleet, '--add-members', '0..3', '--crash-heaviest', '--max-over-mean', '1.05', '--max-queued', '0', '--json']);
  await withPage([fleet], async (page) => {
    await tab(page, 'sweep');
    await page.locator('input[aria-label="sweep to"]').fill('3');
    await page.locator('.sweep-form input[type=checkbox]').setChecked(true);
    await page.locator('.sweep-form button[type=submit]').click();
    await page.waitForFunction(() => {
      const s = document.querySelector('spate-planner').controller.state;
      return !s.sweepRun && s.sweep?.params.to === 3 && s.sweep.params.crash;
    }, null, { timeout: 60000 });
    await page.waitForSelector('.sweep-table tr.is-now');
    const text = await onlyCoreNumbers(page, 'Sweep', '.sweep-result', doc);
    const now = doc.steps.filter((s) => s.today).map((s) => String(s.value));
    assert.deepEqual(await page.locator('.sweep-table tr.is-now').evaluateAll((rs) => rs.map((r) => r.dataset.value)), now);
    assert.ok(text.includes(doc.today.note), text);
  });
});

test('Compare: every number is diff --json\'s; the check finds a number changed on purpose', async () => {
  const doc = await cliJson(['diff', fleet, later, '--json']);
  await withPage([fleet], async (page) => {
    await tab(page, 'compare');
    await page.locator('button', { hasText: 'Keep this snapshot as "before"' }).click();
    await page.waitForFunction(() => /^Kept as "before"/.test(document.querySelector('spate-planner').shadowRoot.querySelector('.before-line').textContent));
    await page.locator('input[aria-label="snapshot file"]').setInputFiles(later);
    await page.waitForSelector('.compare[data-has-result="true"]', { timeout: 30000 });
    const text = await onlyCoreNumbers(page, 'Compare', '.compare-result', doc);
    assert.ok(text.includes(doc.decision.verdict), text);
    // a deliberately wrong rendering: one member's change, computed the other way round
    const cell = page.locator('.compare-members tbody tr td:nth-child(4)', { hasText: /^[+−]/ }).first();
    const shown = await cell.textContent();
    const flipped = `${shown.startsWith('+') ? '−' : '+'}${shown.slice(1)}`;
    await cell.evaluate((td, t) => { td.textContent = t; }, flipped);
    assert.deepEqual(foreignNumbers(await visibleText(page, '.compare-result'), coreNumbers(doc)), [flipped], 'the one number changed is found');
  });
});
