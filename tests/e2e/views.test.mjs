// Issue 20's keyboard, secondary views and context in Debian's headless Chromium, served by the
// real binary: the detail tabs' keys (ARIA tab pattern), skip links, focus never under the sticky
// strip or the drawer, the shortcuts and their help panel; Claims and the warnings at 200
// members; Compare in natural order, sortable, warning when "before" is later; the Timeline's
// reasons for "not recovered", its settled start, and the result brought into view after a
// crash picked in the chart; the forms prefilled by the focused member, one "Applied" line, the
// sweep's range around today's value, the whole state in the link, the served file's name.
// Every page is checked by axe-core and for console errors and CSP violations.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, withServedPage, ready, applyForm, axeViolations, outputDir } from './browser.mjs';
import { demo, laterSnapshot, planOf } from './review-fixtures.mjs';
import { naturalCompare } from '../../web/common/shared/sort.js';

let chrome;
let work;
let big;
before(async () => {
  chrome = await launch();
  await mkdir(outputDir, { recursive: true });
  work = await mkdtemp(join(tmpdir(), 'spate-views-'));
  // the fleet: 200 members, 20,000 splits, 201 warnings (200 of them no_spec)
  big = await demo(work, 'big.json', ['--splits', '20000', '--members', '200', '--job', 'big']);
});
after(async () => { await chrome?.close(); });

const withPage = (serverArgs, { width, height }, fn) => withServedPage(chrome.browser, serverArgs, fn, { width, height });

/** Runs fn(root, arg) in the page with the element's shadow root (fn crosses as Playwright passes functions). */
const inRoot = (page, fn, arg) => page.locator('spate-planner').evaluate(fn, arg);

/** The focused element inside the dashboard: { tab, id, text, cls, inMain }. */
function focused(page) {
  return inRoot(page, ({ shadowRoot: root }) => {
    const e = root.activeElement;
    return e ? { tab: e.dataset.tab ?? null, id: e.id, text: e.textContent.trim(), cls: e.className, inMain: Boolean(e.closest('.main')) } : null;
  });
}

/** 'ok' when the focused element is in the viewport and what is drawn at its centre is itself (not the strip, not the drawer). */
function focusUncovered(page) {
  return inRoot(page, ({ shadowRoot: root }) => {
    const e = root.activeElement;
    if (!e) return 'nothing has the focus';
    const r = e.getBoundingClientRect();
    if (r.top < -1 || r.bottom > innerHeight + 1) return `${e.className || e.tagName} is outside the viewport (${r.top}–${r.bottom})`;
    const hit = root.elementFromPoint(r.left + Math.min(r.width / 2, 40), r.top + r.height / 2);
    return e.contains(hit) ? 'ok' : `${e.dataset.member || e.textContent.trim().slice(0, 30)} is covered by ${hit?.closest('.top') ? 'the sticky strip' : hit?.closest('.side') ? 'the drawer' : hit?.className}`;
  });
}

test('the detail tabs follow the ARIA tab pattern: arrows, Home and End select and focus, the page does not scroll, each panel is labelled by its tab', async () => {
  await withPage([], { width: 1400, height: 900 }, async (page) => {
    await page.locator('.tab[data-tab="splits"]').click();
    const visible = await inRoot(page, ({ shadowRoot: root }) => [...root.querySelectorAll('.tablist .tab')].filter((t) => !t.hidden).map((t) => t.dataset.tab));
    assert.deepEqual(visible.slice(0, 2), ['moves', 'splits']);
    // room below, so that a shorter panel shown cannot pull the page up: only the keys could scroll it
    await page.evaluate(() => { document.body.style.paddingBottom = '3000px'; });
    const y0 = await page.evaluate(() => scrollY);
    const selected = () => inRoot(page, ({ shadowRoot: root }) => root.querySelector('.tab[aria-selected="true"]').dataset.tab);
    for (const [key, want] of [['Home', visible[0]], ['End', visible.at(-1)], ['ArrowRight', visible[0]], ['ArrowLeft', visible.at(-1)], ['ArrowLeft', visible.at(-2)]]) {
      await page.keyboard.press(key);
      assert.equal(await selected(), want, key);
      assert.equal((await focused(page)).tab, want, `${key} moves the focus`);
      assert.equal(await page.evaluate(() => scrollY), y0, `${key} scrolls the page`);
    }
    // one tab in the tab order; every panel labelled by its tab, every tab controlling its panel
    const tabs = await inRoot(page, ({ shadowRoot: root }) => [...root.querySelectorAll('.tablist .tab')].map((t) => {
      const panel = root.getElementById(t.getAttribute('aria-controls'));
      return { id: t.id, index: t.tabIndex, on: t.getAttribute('aria-selected') === 'true', labelledBy: panel.getAttribute('aria-labelledby'), role: panel.getAttribute('role'), hidden: panel.hidden };
    }));
    for (const t of tabs) {
      assert.equal(t.labelledBy, t.id);
      assert.equal(t.role, 'tabpanel');
      assert.equal(t.index, t.on ? 0 : -1, t.id);
      assert.equal(t.hidden, !t.on, t.id);
    }
  });
});

test('skip links come first in the tab order: to the What-if panel (the drawer opened on a phone) and to the details', async () => {
  await withPage([], { width: 390, height: 844 }, async (page) => {
    await page.keyboard.press('Tab');
    assert.equal((await focused(page)).text, 'Skip to the What-if panel');
    assert.equal(await focusUncovered(page), 'ok');
    await page.keyboard.press('Enter');
    assert.equal((await focused(page)).id, 'whatif-body');
    assert.equal(await page.locator('.drawer-toggle').getAttribute('aria-expanded'), 'true');
  });
  await withPage([], { width: 1400, height: 900 }, async (page) => {
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    assert.equal((await focused(page)).text, 'Skip to the details');
    await page.keyboard.press('Enter');
    assert.equal((await focused(page)).tab, 'moves');
    assert.equal(await focusUncovered(page), 'ok');
  });
});

/** The chart's rows in the tab order (tabindex 0): the roving tabindex leaves one. */
const tabStops = (page) => inRoot(page, ({ shadowRoot: root }) => [...root.querySelectorAll('.chart button.member')].filter((b) => b.tabIndex === 0).map((b) => b.dataset.member));

for (const [width, height] of [[1400, 900], [768, 1024], [390, 844]]) {
  test(`${width} px: Shift+Tab and Tab reach the chart's one tab stop, the arrow keys walk its rows, and the focus is never under the sticky strip or the drawer (WCAG 2.4.11)`, async () => {
    await withPage([], { width, height }, async (page) => {
      if (width < 900) await page.locator('.drawer-toggle').click();
      assert.equal((await tabStops(page)).length, 1, 'one row in the tab order');
      await inRoot(page, ({ shadowRoot: root }) => root.querySelector('.tab[aria-selected="true"]').focus());
      let row = null;
      for (let i = 0; i < 30 && !row; i++) {
        await page.keyboard.press('Shift+Tab');
        const f = await focused(page);
        if (f?.inMain) assert.equal(await focusUncovered(page), 'ok', `Shift+Tab ${i + 1}`);
        row = await inRoot(page, ({ shadowRoot: root }) => root.activeElement?.dataset.member ?? null);
      }
      assert.ok(row, 'Shift+Tab reaches a row of the chart');
      // the rows, one by one, down and up again, every one in view and uncovered
      const names = await inRoot(page, ({ shadowRoot: root }) => [...root.querySelectorAll('.chart button.member')].map((b) => b.dataset.member));
      for (const [key, steps] of [['ArrowDown', names.length + 2], ['ArrowUp', names.length + 2]]) {
        for (let i = 0; i < steps; i++) {
          await page.keyboard.press(key);
          assert.equal(await focusUncovered(page), 'ok', `${key} ${i + 1}`);
        }
        const at = await inRoot(page, ({ shadowRoot: root }) => root.activeElement?.dataset.member);
        assert.equal(at, key === 'ArrowDown' ? names.at(-1) : names[0], `${key} stops at the end`);
      }
      await page.keyboard.press('End');
      assert.equal(await inRoot(page, ({ shadowRoot: root }) => root.activeElement?.dataset.member), names.at(-1));
      assert.deepEqual(await tabStops(page), [names.at(-1)], 'the row last focused holds the tab stop');
      await page.keyboard.press('Home');
      await page.keyboard.press('Tab');
      assert.equal(await inRoot(page, ({ shadowRoot: root }) => root.activeElement?.matches('button.member')), false, 'Tab leaves the rows');
      for (let i = 0; i < 12; i++) {
        const f = await focused(page);
        if (f?.inMain) assert.equal(await focusUncovered(page), 'ok', `Tab ${i + 1}`);
        await page.keyboard.press('Tab');
      }
    });
  });
}

test('Enter or a click on a chart row keeps the focus on its row when the chart is drawn again; so does Show all; / finds a member', async () => {
  await withPage([big], { width: 1400, height: 900 }, async (page) => {
    const active = () => inRoot(page, ({ shadowRoot: root }) => root.activeElement?.dataset.member ?? root.activeElement?.textContent ?? null);
    await page.locator('.chart button[data-member]').nth(3).focus();
    const name = await active();
    await page.keyboard.press('Enter');
    await page.waitForFunction((m) => document.querySelector('spate-planner').controller.state.focus === m, name);
    assert.equal(await active(), name, 'the focus stays on the row Enter filtered to');
    assert.equal(await page.locator(`.chart button[data-member="${name}"]`).getAttribute('aria-pressed'), 'true');
    await page.keyboard.press('ArrowDown');
    const next = await active();
    assert.notEqual(next, name);
    await page.locator(`.chart button[data-member="${next}"]`).click();
    await page.waitForFunction((m) => document.querySelector('spate-planner').controller.state.focus === m, next);
    assert.equal(await active(), next, 'the focus stays on the row clicked');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('spate-planner').controller.state.focus === null);
    assert.equal(await active(), next, 'and on the row whose filter Enter removed');
    // the fold's button: its successor has the focus
    await page.locator('.fold button', { hasText: /^Show all 200$/ }).focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('spate-planner').shadowRoot.querySelectorAll('.chart button.member').length === 200);
    assert.equal(await active(), 'Show the top 25 only');
    // `/`: the member search, whatever had the focus (not while typing)
    await page.evaluate(() => document.activeElement?.blur());
    await page.keyboard.press('/');
    assert.equal(await inRoot(page, ({ shadowRoot: root }) => root.activeElement?.getAttribute('aria-label')), 'member name or split id');
    await page.keyboard.type('a/b');
    assert.equal(await page.locator('input[aria-label="member name or split id"]').inputValue(), 'a/b', 'in the field, / is a character');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('worker-17');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('spate-planner').shadowRoot.activeElement?.dataset.member === 'worker-17');
  });
});

test('shortcuts: u undoes the last what-if change, ? opens the help (Escape closes it, the focus goes back); typing in a field is only typing', async () => {
  await withPage([], { width: 1400, height: 900 }, async (page) => {
    const changes = () => page.evaluate(() => document.querySelector('spate-planner').controller.state.scenario.changes.length);
    let n = Number(await page.getAttribute('spate-planner', 'data-plans'));
    await applyForm(page, 'add', { 'new member name': 'w-undo' });
    n = await ready(page, n);
    assert.equal(await changes(), 1);
    await page.evaluate(() => document.activeElement?.blur());
    await page.keyboard.press('u');
    n = await ready(page, n);
    assert.equal(await changes(), 0);
    assert.match(await page.locator('.status').textContent(), /^Removed: add member w-undo/);
    // in a text field the key is a letter
    await page.locator('input[aria-label="new member name"]').fill('');
    await page.locator('input[aria-label="new member name"]').press('u');
    assert.equal(await page.locator('input[aria-label="new member name"]').inputValue(), 'u');
    assert.doesNotMatch(await page.locator('.status').textContent(), /Nothing to undo/);
    // ? from a chart row: the help, a modal dialog with its title; Escape gives the focus back
    await page.locator('.chart button[data-member="worker-05"]').focus();
    await page.keyboard.press('?');
    await page.waitForSelector('dialog.help[open]');
    assert.equal(await page.locator('dialog.help').getAttribute('aria-labelledby'), 'help-title');
    assert.deepEqual(await page.locator('dialog.help dt').allTextContents(), ['/', 'u', '?', 'Esc', '↑ ↓', 'Home End', '← →', 'Home End', 'Tab Shift+Tab', 'Tap', 'Long-press', '?']);
    assert.equal((await focused(page)).text, 'Close');
    assert.deepEqual(await axeViolations(page), []);
    await page.keyboard.press('Escape');
    assert.equal(await page.locator('dialog.help').evaluate((d) => d.open), false);
    assert.equal(await inRoot(page, ({ shadowRoot: root }) => root.activeElement?.dataset.member), 'worker-05');
    // the header's ? button opens it too; u with nothing to undo says so
    await page.locator('button[aria-label="Keyboard shortcuts (?)"]').click();
    await page.waitForSelector('dialog.help[open]');
    await page.locator('dialog.help button', { hasText: 'Close' }).click();
    await page.evaluate(() => document.activeElement?.blur());
    await page.keyboard.press('u');
    await page.waitForFunction(() => /Nothing to undo/.test(document.querySelector('spate-planner').shadowRoot.querySelector('.status').textContent));
  });
});

test('Claims at 200 members: opens fast on the mode that has actions (saying why), members with nothing to do folded into one line, "skipped" said in words, thousands separated', async (t) => {
  await withPage([big], { width: 1400, height: 900 }, async (page) => {
    // one format for numbers: the status line writes the fleet's size as the header does
    assert.match(await page.locator('.summary .status').textContent(), /: job \S+, 200 members, 20,000 splits\./);
    const t0 = Date.now();
    await page.locator('.tab[data-tab="claims"]').click();
    await page.waitForSelector('.claims [data-ready]', { timeout: 60000 });
    const opened = Date.now() - t0;
    const ms = Number(await page.locator('.claims .scroll').getAttribute('data-ms'));
    t.diagnostic(`Claims opened in ${opened} ms (request and drawing ${ms.toFixed(0)} ms) at 200 members, 20,000 splits`);
    // budget 300 ms (tests/bench/views.mjs prints the figure); five times that here for a shared machine
    assert.ok(ms < 1500, `the claims took ${ms.toFixed(0)} ms`);
    // the published records give nobody anything to do here: the tab opens on the plan and says why
    const source = page.locator('select[aria-label="assignment the workers act on"]');
    assert.equal(await source.inputValue(), 'plan');
    assert.match(await page.locator('.claims-opened').textContent(), /^The published records give no member anything to do \(the workers already hold what they name\): shown are the [\d,]+ actions once the leader publishes the plan\.$/);
    assert.match(await page.locator('.claims-summary').textContent(), /acting on the plan/);
    const names = await page.locator('.claims .worker').evaluateAll((ws) => ws.map((w) => w.dataset.worker));
    assert.ok(names.length > 0);
    assert.deepEqual(names, names.slice().sort(naturalCompare));
    assert.match(await page.locator('.claims .worker .hint').first().textContent(), /^holds [\d,]+ of [\d,]+ lanes; has an assignment/);
    // the published records, picked: nothing to do, folded into one line; the tab no longer switches
    await source.selectOption('published');
    await page.waitForFunction(() => /acting on the published records/.test(document.querySelector('spate-planner').shadowRoot.querySelector('.claims-summary').textContent));
    assert.equal(await page.locator('.claims-opened').isHidden(), true);
    assert.equal(await page.locator('.claims-summary').textContent(),
      '200 live members, 0 actions (acting on the published records; max_attempts 4). 200 of them have nothing to claim, quarantine, drain or drop.');
    assert.equal(await page.locator('.claims .worker').count(), 0);
    assert.equal(await page.locator('.idle-workers > summary').textContent(), '200 members with nothing to claim, quarantine, drain or drop');
    assert.equal(await page.locator('.claims [data-worker]').count(), 200);
    const facts = await page.locator('.idle-table tbody td:last-child').allTextContents();
    assert.ok(facts.every((f) => /^holds \d+ of \d+ lanes; has an assignment; [\d,]+ candidates skipped: not in its assignment(, or beyond its cap of \d+ lanes)?$/.test(f)), facts[0]);
    assert.ok(facts.some((f) => /\d,\d{3} candidates skipped/.test(f)), facts[0]);
    assert.doesNotMatch(await page.locator('.claims').textContent(), /\d{4}/, 'every number of four digits or more has a separator');
    assert.match(await page.locator('.claims').textContent(), /Skipped: the candidates a worker passes over — claims of splits its assignment does not name, or claims beyond its cap/);
  });
});

test('on paper: no empty Sweep, Compare or Upgrade section, no button, and each kind of warning is its count and its first five keys', async () => {
  await withPage([big], { width: 1400, height: 900 }, async (page) => {
    await page.emulateMedia({ media: 'print' });
    const printed = await page.evaluate(() => {
      const root = document.querySelector('spate-planner').shadowRoot;
      const shown = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
      return {
        panels: [...root.querySelectorAll('.tabpanel')].filter(shown).map((p) => p.id),
        buttons: [...root.querySelectorAll('button')].filter(shown).filter((b) => !b.closest('.chart')).filter((b) => !b.closest('.tile-cell')).map((b) => b.textContent),
        keys: [...root.querySelectorAll('.warning-group[data-code="no_spec"] li')].filter(shown).map((li) => li.textContent),
      };
    });
    assert.deepEqual(printed.panels, ['panel-details'], 'only the tab with figures is printed');
    assert.deepEqual(printed.buttons, [], 'nothing to press on paper');
    assert.equal(printed.keys.length, 6, printed.keys.join('\n'));
    assert.ok(printed.keys.slice(0, 5).every((k) => /^bucket \S+, key split\.\S+: /.test(k)), printed.keys[0]);
    assert.equal(printed.keys[5], '… and 195 more no_spec keys (the page and spate-planner snapshot --json list every one)');
    const pdf = await page.pdf({ format: 'A4' });
    const pages = (pdf.toString('latin1').match(/\/Type\s*\/Page[^s]/g) || []).length;
    console.log(`# printed on ${pages} A4 pages (200 members, 20,000 splits, 201 warnings)`);
    assert.ok(pages <= 12, `${pages} pages`);
  });
});

test('the warnings of 200 members: one line per code with its count, largest first, opening to its keys', async () => {
  await withPage([big], { width: 1400, height: 900 }, async (page) => {
    assert.equal(await page.locator('.warnings > summary').textContent(), '201 warnings in the snapshot, of 2 kinds (the leader survives these)');
    const groups = await page.locator('.warning-group').evaluateAll((gs) => gs.map((g) => [g.dataset.code, Number(g.dataset.count)]));
    assert.deepEqual(groups, [['no_spec', 200], ['unreadable_presence', 1]]);
    await page.locator('.warnings > summary').click();
    assert.match(await page.locator('.warning-group[data-code="no_spec"] > summary').textContent(), /^no_spec × 200 — /);
    await page.locator('.warning-group[data-code="no_spec"] > summary').click();
    // every key on screen (the line saying how many more is for paper only)
    const keys = await page.locator('.warning-group[data-code="no_spec"] li:visible').allTextContents();
    assert.equal(keys.length, 200);
    assert.ok(keys.every((k) => /^bucket \S+, key \S+: /.test(k)), keys[0]);
  });
});

/** Adds presence keys for `names` to a snapshot's lease bucket, copied from `like`'s. */
async function withMembers(file, out, like, names) {
  const lines = (await readFile(file, 'utf8')).split('\n');
  const i = lines.findIndex((l) => l.includes(`"key":"worker.${like}"`));
  assert.ok(i > 0, `no presence of ${like}`);
  const copies = names.map((n) => lines[i].replace(`"key":"worker.${like}"`, `"key":"worker.${n}"`).replace(/,?\s*$/, ','));
  lines.splice(i, 0, ...copies);
  await writeFile(out, lines.join('\n'));
  return out;
}

test('Compare: members in natural order, sortable by each column (aria-sort), and a warning when "before" is not earlier', async () => {
  const before0 = await demo(work, 'cmp-before.json', ['--splits', '600', '--members', '8', '--job', 'cmp', '--seed', '3']);
  const later0 = join(work, 'cmp-later0.json');
  await laterSnapshot(before0, later0, await planOf(before0));
  const later = await withMembers(later0, join(work, 'cmp-later.json'), 'worker-03', ['w-10', 'w-2', 'w-9']);
  await withPage([later], { width: 1400, height: 900 }, async (page) => {
    await page.locator('.tab[data-tab="compare"]').click();
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.locator('button', { hasText: 'Open earlier snapshot…' }).click()]);
    await chooser.setFiles(before0);
    await page.waitForSelector('.compare[data-has-result="true"]', { timeout: 30000 });
    const order = () => page.locator('.compare-members tbody tr').evaluateAll((rs) => rs.map((r) => r.dataset.member));
    const names = await order();
    assert.deepEqual(names, names.slice().sort(naturalCompare));
    assert.deepEqual(names.filter((x) => x.startsWith('w-')), ['w-2', 'w-9', 'w-10']);
    assert.equal(await page.locator('.compare-members th[aria-sort="ascending"] button').textContent(), 'member');
    assert.equal(await page.locator('.compare-order').count(), 0, 'before is earlier: no warning');
    // by load after: the largest first, then reversed; the sort is said in aria-sort
    await page.locator('.compare-members th button', { hasText: 'after' }).click();
    const after = () => page.locator('.compare-members tbody tr').evaluateAll((rs) => rs.map((r) => r.cells[2].title).filter(Boolean).map((t) => BigInt(t.replace(/[^\d]/g, ''))));
    let loads = await after();
    assert.ok(loads.length > 5 && loads.every((v, i) => i === 0 || loads[i - 1] >= v), 'descending');
    assert.equal(await page.locator('.compare-members th[aria-sort="descending"] button').textContent(), 'after');
    assert.equal(await page.locator('.compare-members th[aria-sort="ascending"]').count(), 0);
    await page.locator('.compare-members th button', { hasText: 'after' }).click();
    loads = await after();
    assert.ok(loads.every((v, i) => i === 0 || loads[i - 1] <= v), 'ascending');
    assert.equal(await page.locator('.compare-members th[aria-sort="ascending"] button').textContent(), 'after');
    await page.locator('.compare-members th button', { hasText: 'member' }).click();
    assert.deepEqual(await order(), names);
  });
  // the later snapshot opened as "before": the comparison runs backwards, and says so
  await withPage([before0], { width: 1400, height: 900 }, async (page) => {
    await page.locator('.tab[data-tab="compare"]').click();
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.locator('button', { hasText: 'Open earlier snapshot…' }).click()]);
    await chooser.setFiles(later0);
    await page.waitForSelector('.compare[data-has-result="true"]', { timeout: 30000 });
    // the core's warning (the diff document's chronology_warning), as it words it
    assert.match(await page.locator('.compare-order').textContent(), /^"Before" is not earlier than "after": it was taken later, so the comparison runs backwards .*\("Before" was taken \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC; "after" \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\.\)$/);
    // the core's words: the review document carries the same warning (the comparison's `warnings`)
  });
});
