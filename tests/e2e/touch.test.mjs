// Issue 20's touch, small-screen and wall-screen items in Debian's headless Chromium, served by
// the real binary: on a phone (390 × 844, touch emulated, light and dark) the sticky strip is one
// line that opens to the tiles, the chart's first rows are on the first screen, a tap on a row
// filters to it and shows its figures, a long-press shows them without filtering, each tile's
// words open by a tap, the open what-if drawer takes at most half the screen; on a tablet
// (768 × 1024) the same by touch; on a wall screen (2560 × 1440) the type is larger, the chart is
// not stretched across and sits beside the details. Every page is checked by axe-core and for
// console errors and CSP violations.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, withServedPage, outputDir } from './browser.mjs';
import { demo } from './review-fixtures.mjs';

let chrome;
let work;
let fleet;
before(async () => {
  chrome = await launch();
  await mkdir(outputDir, { recursive: true });
  work = await mkdtemp(join(tmpdir(), 'spate-touch-'));
  fleet = await demo(work, 'touch.json', ['--splits', '3000', '--members', '60', '--job', 'touch']);
});
after(async () => { await chrome?.close(); });

const withPage = (options, fn) => withServedPage(chrome.browser, [fleet], fn, options);

/** Runs fn(root, arg) in the page with the element's shadow root. */
const inRoot = (page, fn, arg) => page.locator('spate-planner').evaluate(fn, arg);

const state = (page) => page.evaluate(() => {
  const s = document.querySelector('spate-planner').controller.state;
  return { focus: s.focus, members: s.result.view.report.members.map((m) => m.name) };
});

/** 'ok' when the element is inside the viewport and what is drawn at its centre is itself. */
function uncovered(page, selector) {
  return inRoot(page, ({ shadowRoot: root }, sel) => {
    const e = root.querySelector(sel);
    if (!e) return `no ${sel}`;
    const r = e.getBoundingClientRect();
    if (!(r.height > 0 && r.top >= -1 && r.bottom <= innerHeight + 1)) return `${sel} is outside the viewport (${Math.round(r.top)}–${Math.round(r.bottom)} of ${innerHeight})`;
    const hit = root.elementFromPoint(r.left + Math.min(r.width / 2, 60), r.top + r.height / 2);
    return e.contains(hit) ? 'ok' : `${sel} is covered by ${hit?.className || hit?.tagName}`;
  }, selector);
}

/** The tooltip as shown: { text, inView } or null when hidden. */
function tooltip(page) {
  return inRoot(page, ({ shadowRoot: root }) => {
    const t = root.querySelector('.fleet .tooltip');
    if (!t || t.hidden) return null;
    const r = t.getBoundingClientRect();
    return { text: t.textContent, inView: r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth };
  });
}

/** A touch held on the element's centre for `ms` (Chromium's own touch events, as a finger). */
async function longPress(page, selector, ms = 800) {
  await page.locator(selector).evaluate((e) => e.scrollIntoView({ block: 'center' }));
  const box = await page.locator(selector).boundingBox();
  const cdp = await page.context().newCDPSession(page);
  const at = { x: box.x + Math.min(box.width / 2, 60), y: box.y + box.height / 2 };
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [at] });
  await page.waitForTimeout(ms);
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
}

for (const theme of ['light', 'dark']) {
  test(`390 × 844 by touch, ${theme}: the strip is one line that opens, the chart's first rows on the first screen, a tap filters and shows the figures, a long-press shows them, the tiles' words by a tap, the drawer at most half the screen`, async () => {
    await withPage({ width: 390, height: 844, theme, touch: true }, async (page) => {
      // one line: the strip's height, and the tiles hidden until it is opened
      const strip = await inRoot(page, ({ shadowRoot: root }) => ({ top: Math.round(root.querySelector('.top').getBoundingClientRect().height), tiles: root.querySelector('.strip').getClientRects().length }));
      assert.ok(strip.top <= 56, `the sticky strip is ${strip.top} px tall`);
      assert.equal(strip.tiles, 0, 'the tiles are folded');
      assert.equal(await inRoot(page, ({ shadowRoot: root }) => { const t = root.querySelector('.strip-line-text'); return t.scrollWidth <= t.clientWidth; }), true, 'the line is whole, not cut');
      assert.match(await page.locator('.strip-line').textContent(), /^max\/mean \d\.\d+→\d\.\d+ · [\d,]+ moves · over [\d,]+→[\d,]+▾$/);
      // the chart's first three rows are on the first screen, nothing over them
      for (let i = 1; i <= 3; i++) assert.equal(await uncovered(page, `.chart .rows > button.member:nth-of-type(${i})`), 'ok', `row ${i}`);
      await page.screenshot({ path: join(outputDir, `touch-390-${theme}.png`) });
      // the strip opens to the tiles, and a tile's ? shows its words under the strip
      await page.locator('.strip-line').tap();
      assert.equal(await page.locator('.strip-line').getAttribute('aria-expanded'), 'true');
      assert.equal(await uncovered(page, '.tile[data-tile="balance"]'), 'ok');
      const info = page.locator('.tile-cell:has(.tile[data-tile="balance"]) .tile-info');
      await info.tap();
      assert.equal(await info.getAttribute('aria-expanded'), 'true');
      assert.match(await page.locator('.tile-help').textContent(), /^Max \/ mean: The heaviest member's load over the mean/);
      assert.equal(await uncovered(page, '.tile-help'), 'ok');
      await info.tap();
      assert.equal(await page.locator('.tile-help').isVisible(), false);
      await page.locator('.strip-line').tap();
      assert.equal(await page.locator('.strip').isVisible(), false);
      // a tap on a row: filtered to it, the focus kept on its row, its figures shown in view
      const { members } = await state(page);
      const picked = members[2];
      await page.locator(`.chart button[data-member="${picked}"]`).tap();
      await page.waitForFunction((m) => document.querySelector('spate-planner').controller.state.focus === m, picked);
      assert.equal(await inRoot(page, ({ shadowRoot: root }) => root.activeElement?.dataset.member), picked);
      let tip = await tooltip(page);
      assert.ok(tip, 'the figures are shown after a tap');
      assert.match(tip.text, new RegExp(`^${picked}now .+ the mean now.*lanes \\d+ of \\d+`));
      assert.ok(tip.inView, 'the figures are in the window');
      await page.screenshot({ path: join(outputDir, `touch-390-${theme}-tapped.png`) });
      // a long-press on another row: its figures, and the filter stays
      const held = members[4];
      await longPress(page, `.chart button[data-member="${held}"]`);
      tip = await tooltip(page);
      assert.ok(tip && tip.text.startsWith(held), `the long-pressed member's figures: ${tip?.text}`);
      assert.equal((await state(page)).focus, picked, 'a long-press does not filter');
      // the what-if drawer, opened, takes at most half the screen
      await page.locator('.drawer-toggle').tap();
      const h = await inRoot(page, ({ shadowRoot: root }) => root.querySelector('.whatif').getBoundingClientRect().height);
      assert.ok(h <= 844 / 2 + 1, `the drawer is ${Math.round(h)} px of 844`);
      assert.equal(await uncovered(page, '.drawer-toggle'), 'ok');
    });
  });
}

test('every tile shows its whole title at 390, 768, 1400 and 2560 px (a cut title hides what the tile measures)', async () => {
  for (const [width, height] of [[390, 844], [768, 1024], [1400, 900], [2560, 1440]]) {
    await withPage({ width, height }, async (page) => {
      if (width < 600) await page.locator('.strip-line').click(); // the phone's strip opens to its tiles
      const labels = await page.locator('.tile .label').evaluateAll((ls) => ls.map((l) => ({
        text: l.textContent, shown: l.offsetParent !== null, cut: l.scrollWidth > l.clientWidth + 1,
        clear: (() => { const i = l.closest('.tile-cell')?.querySelector('.tile-info'); if (!i) return true; const a = l.getBoundingClientRect(); const b = i.getBoundingClientRect(); const text = document.createRange(); text.selectNodeContents(l); return [...text.getClientRects()].every((r) => r.right <= b.left + 0.5 || r.bottom <= b.top || r.top >= b.bottom); })(),
      })));
      assert.ok(labels.length >= 6 && labels.every((l) => l.shown), `${width}: ${JSON.stringify(labels)}`);
      assert.deepEqual(labels.filter((l) => l.cut).map((l) => l.text), [], `${width} px: no title cut`);
      assert.deepEqual(labels.filter((l) => !l.clear).map((l) => l.text), [], `${width} px: no title under its ? button`);
    });
  }
});

test('768 × 1024 by touch: the strip shows its tiles, a tap on a row filters and shows the figures, a tile\'s ? shows its words', async () => {
  await withPage({ width: 768, height: 1024, touch: true }, async (page) => {
    assert.equal(await page.locator('.strip-line').isVisible(), false);
    assert.equal(await uncovered(page, '.tile[data-tile="moves"]'), 'ok');
    const info = page.locator('.tile-cell:has(.tile[data-tile="moves"]) .tile-info');
    await info.tap();
    assert.match(await page.locator('.tile-help').textContent(), /^Moves: Splits that change hands in the plan/);
    const { members } = await state(page);
    await page.locator(`.chart button[data-member="${members[1]}"]`).tap();
    await page.waitForFunction((m) => document.querySelector('spate-planner').controller.state.focus === m, members[1]);
    const tip = await tooltip(page);
    assert.ok(tip?.text.startsWith(members[1]) && tip.inView, JSON.stringify(tip));
  });
});

for (const theme of ['light', 'dark']) {
  test(`2560 × 1440, ${theme}: larger type, the chart beside the details (not stretched across the screen), bounded lines`, async () => {
    await withPage({ width: 2560, height: 1440, theme }, async (page) => {
      const m = await inRoot(page, ({ shadowRoot: root }) => {
        const box = (sel) => root.querySelector(sel).getBoundingClientRect();
        return { name: box('.chart .member .name').height, row: box('.chart .member').width, fleet: box('.fleet'), tabs: box('.tabs'), caption: box('.chart-caption').width, body: parseFloat(getComputedStyle(root.querySelector('.planner')).fontSize) };
      });
      // 14 px type at 1.25: a name's line is 13 px × 1.4 × 1.25 ≈ 22.75 px tall (18.2 px before)
      assert.ok(m.name >= 22, `a member's name is ${m.name} px tall`);
      assert.ok(m.row <= 1300, `a chart row spans ${Math.round(m.row)} px`);
      assert.ok(m.tabs.left >= m.fleet.right, 'the details sit beside the chart');
      assert.ok(m.tabs.top < m.fleet.bottom, 'the details start beside the chart, not below it');
      assert.ok(m.caption <= 80 * 9 * 1.25, `the caption's lines are ${Math.round(m.caption)} px long`);
      await page.screenshot({ path: join(outputDir, `wall-2560-${theme}.png`) });
    });
  });
}
