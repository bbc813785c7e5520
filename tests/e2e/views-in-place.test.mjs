// The review and plan views are drawn in place (lit-html templates, rows keyed): what the person
// was doing in them survives a new plan or a live frame's new fleet details — the sort they chose,
// the button that had the keyboard focus, the text they selected to copy. In Debian's headless
// Chromium, served by the real binary; each case makes the redraw happen after the person acted,
// and waits for it to be drawn before it looks.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, withServedPage, ready } from './browser.mjs';
import { demo, laterSnapshot, planOf } from './review-fixtures.mjs';

let chrome;
let fleet;
let later;
before(async () => {
  chrome = await launch();
  const work = await mkdtemp(join(tmpdir(), 'spate-in-place-'));
  fleet = await demo(work, 'fleet.json', ['--splits', '600', '--members', '8', '--job', 'in-place', '--seed', '5']);
  later = join(work, 'later.json');
  await laterSnapshot(fleet, later, await planOf(fleet));
});
after(async () => { await chrome?.close(); });

const withPage = (fn) => withServedPage(chrome.browser, [fleet], fn);
const plans = async (page) => Number(await page.getAttribute('spate-planner', 'data-plans'));

/** Focuses `locator`'s element and remembers it (window.__focused). */
const focus = (locator) => locator.evaluate((e) => { e.focus(); window.__focused = e; });

/** Whether the element that has the focus is the one focus() remembered. */
const stillFocused = (page) => page.evaluate(() => document.querySelector('spate-planner').shadowRoot.activeElement === window.__focused);

/** Selects the text of `locator`'s element; returns it. (Chromium keeps a selection inside the element's shadow root there.) */
const selectText = (locator) => locator.evaluate((e) => {
  const r = document.createRange();
  r.selectNodeContents(e);
  const s = e.getRootNode().getSelection();
  s.removeAllRanges();
  s.addRange(r);
  window.__selected = e;
  return s.toString();
});

/** The text selected now, and whether it is still in the element selectText() selected. */
const selection = (page) => page.evaluate(() => {
  const s = document.querySelector('spate-planner').shadowRoot.getSelection();
  return { text: s.toString(), same: s.rangeCount > 0 && window.__selected.isConnected && window.__selected.contains(s.getRangeAt(0).startContainer) };
});

/** A new plan (a default cap set, as a live frame's or a what-if's would): waits until it is shown. */
async function newPlan(page, cap) {
  const n = await plans(page);
  await page.evaluate((c) => document.querySelector('spate-planner').controller.setSettings({ defaultCap: c }), cap);
  await ready(page, n);
}

test('Compare: the sort chosen and the focused header or CSV button survive a live frame\'s new fleet details', async () => {
  await withPage(async (page) => {
    await page.locator('.tab[data-tab="compare"]').click();
    await page.locator('button', { hasText: 'Keep this snapshot as "before"' }).click();
    await page.locator('input[aria-label="snapshot file"]').setInputFiles(later);
    await page.waitForSelector('.compare[data-has-result="true"]', { timeout: 30000 });
    const after = page.locator('.compare-members th:has(button.sort:text-is("after"))');
    await after.locator('button').click();
    assert.equal(await after.getAttribute('aria-sort'), 'descending');
    const order = () => page.locator('.compare-members tbody tr').evaluateAll((rows) => rows.map((tr) => tr.dataset.member));
    const sorted = await order();
    // the fleet's details read again, as each live frame does: the comparison is drawn again
    const frame = () => page.evaluate(() => { const c = document.querySelector('spate-planner').controller; c.store.update({ info: { ...c.state.info } }); });
    for (const target of [after.locator('button'), page.locator('.compare-result button[data-csv="compare-members"]')]) {
      await focus(target);
      await frame();
      assert.equal(await stillFocused(page), true, await target.textContent());
      assert.equal(await after.getAttribute('aria-sort'), 'descending');
      assert.deepEqual(await order(), sorted);
    }
  });
});

test('Splits: the search typed and text selected in a matching split\'s row stay through a new plan', async () => {
  await withPage(async (page) => {
    await page.locator('.tab[data-tab="splits"]').click();
    const search = page.locator('input[aria-label="search splits"]');
    await search.fill('part-00000');
    await page.locator('.splits .count').filter({ hasText: /^10 matches$/ }).waitFor();
    const cell = page.locator('.splits tbody tr').nth(3).locator('td').first();
    // each search the tab runs, counted once it has been answered and drawn
    await page.evaluate(() => {
      const c = document.querySelector('spate-planner').controller;
      const real = c.ask.bind(c);
      window.__searches = 0;
      c.ask = async (op, args) => {
        const out = await real(op, args);
        if (op === 'findSplits') setTimeout(() => { window.__searches++; }, 0);
        return out;
      };
    });
    const id = await selectText(cell);
    assert.match(id, /\S/);
    for (const cap of [7, 9]) {
      const searched = await page.evaluate(() => window.__searches);
      await newPlan(page, cap);
      await page.waitForFunction((n) => window.__searches > n, searched);
      assert.deepEqual(await selection(page), { text: id, same: true }, `default cap ${cap}`);
      assert.equal(await search.inputValue(), 'part-00000');
      assert.equal(await page.locator('.splits tbody tr').count(), 10);
    }
  });
});

test('Sweep: text selected in a step\'s row stays selected while the sweep is planned again for a new plan', async () => {
  await withPage(async (page) => {
    await page.locator('.tab[data-tab="sweep"]').click();
    // (predicates as functions: the page's Content-Security-Policy refuses a string evaluated as script)
    await page.waitForFunction(() => { const s = document.querySelector('spate-planner').controller.state; return s.sweep && !s.sweepRun; }, null, { timeout: 120000 });
    // a target typed (the steps checked against it again), then a step's value selected
    await page.locator('input[aria-label="target max/mean"]').fill('1.2');
    const cell = page.locator('.sweep-table tbody tr[data-value="2"] td').first();
    const text = await selectText(cell);
    assert.equal(text, '2');
    const old = await page.evaluate(() => { window.__sweep = document.querySelector('spate-planner').controller.state.sweep; return window.__sweep.text; });
    assert.ok(old);
    await newPlan(page, 5);
    // the sweep planned again on the new plan, and drawn with the core's verdict
    await page.waitForFunction(() => { const s = document.querySelector('spate-planner').controller.state; return s.sweep !== window.__sweep && !s.sweepRun; }, null, { timeout: 120000 });
    await page.waitForFunction(() => /is planned/.test(document.querySelector('spate-planner').shadowRoot.querySelector('.sweep-status').textContent));
    assert.deepEqual(await selection(page), { text: '2', same: true });
    assert.equal(await page.locator('input[aria-label="target max/mean"]').inputValue(), '1.2');
  });
});
