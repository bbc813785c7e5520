// Where things sit (issue 33): the chart's tooltip lies next to the row hovered (never farther
// than the row beside it), never covers that row or the rows on either side of it, and keeps
// clear of the pinned rows (the heaviest now and planned) wherever a place next to the row
// allows, at a phone's, a laptop's and a wall's width; the Timeline's fields
// stay inside their card at 1400 px and on a phone, with configuration B shown, and its selects
// show each option's whole text at 390, 1400 and 2560 px; on a phone the what-if forms' selects show
// each option's whole text.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, withServedPage, openWhatIf } from './browser.mjs';

let chrome;
before(async () => { chrome = await launch(); });
after(async () => { await chrome?.close(); });

const PHONE = { width: 390, height: 844, touch: true };

/** Whether two rectangles share any area. */
const overlap = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/**
 * Hovers row `i` (scrolled to `where` in the window) and returns the tooltip's box, the boxes of
 * the row, the rows beside it and the pinned rows (`pinnedRows`: their indexes), and the room.
 */
async function hover(page, i, where, pinnedRows) {
  const rows = page.locator('.chart button[data-member]');
  await rows.nth(i).evaluate((e, block) => e.scrollIntoView({ block }), where);
  const b = await rows.nth(i).boundingBox();
  await page.mouse.move(b.x + 40, b.y + b.height / 2);
  await page.mouse.move(b.x + 48, b.y + b.height / 2);
  await page.locator('.tooltip:not([hidden])').waitFor();
  const tip = await page.locator('.tooltip').boundingBox();
  const n = await rows.count();
  const before = i > 0 ? await rows.nth(i - 1).boundingBox() : null;
  const after = i + 1 < n ? await rows.nth(i + 1).boundingBox() : null;
  // the pinned rows other than these three
  const pinned = [];
  for (const j of pinnedRows) if (Math.abs(j - i) > 1) pinned.push(await rows.nth(j).boundingBox());
  // the window's room clear of the sticky strip and of a narrow element's drawer (app.js measures both)
  const room = await page.locator('.fleet').evaluate((e) => {
    const cs = getComputedStyle(e);
    return { lo: parseFloat(cs.getPropertyValue('--strip-h')) || 0, hi: innerHeight - (parseFloat(cs.getPropertyValue('--drawer-h')) || 0) };
  });
  const name = await rows.nth(i).getAttribute('data-member');
  await page.mouse.move(2, 2);
  return { tip, row: b, before, after, pinned, room, name };
}

/** How far the tooltip's nearest edge is from its row's (0 when they touch or overlap). */
const distance = (tip, row) => Math.max(0, tip.y - (row.y + row.height), row.y - (tip.y + tip.height));

/**
 * What is wrong with the tooltip of one hover: it covers the row or a row beside it; it lies out
 * of the window or farther from its row than the row beside it (one and a half rows and its
 * margin); it covers a pinned row although a place next to the row (just below the next row or
 * just above the one before, in the room between the strip and the drawer) would have left every
 * pinned row clear.
 */
function misplaced({ tip, row, before, after, pinned, room }, height) {
  const out = [];
  for (const [what, r] of [['its row', row], ['the row before', before], ['the row after', after]]) if (r && overlap(tip, r)) out.push(`covers ${what}`);
  if (tip.y < 0 || tip.y + tip.height > height) out.push('is out of the window');
  const bound = 1.5 * row.height + 8;
  if (distance(tip, row) > bound) out.push(`is ${Math.round(distance(tip, row))} px from its row (at most ${Math.round(bound)})`);
  const spots = [(after ?? row).y + (after ?? row).height + 4, (before ?? row).y - tip.height - 4]
    .filter((y) => y >= room.lo + 1 && y + tip.height <= room.hi - 1)
    .filter((y) => pinned.every((p) => !overlap({ ...tip, y: y - 1, height: tip.height + 2 }, p)));
  if (spots.length && pinned.some((p) => overlap(tip, p))) out.push(`covers a pinned row though ${Math.round(spots[0])} px down would not`);
  return out;
}

for (const [width, heights] of [[390, [844, 640]], [1400, [1000, 700]], [2560, [1440, 900]]]) {
  test(`${width} px: the tooltip lies next to its row, covering neither it nor the rows beside it, the pinned rows where it can`, async () => {
    for (const height of heights) {
      await withServedPage(chrome.browser, [], async (page) => {
        const rows = page.locator('.chart button[data-member]');
        const n = await rows.count();
        const pinned = await rows.evaluateAll((all) => all.map((r, i) => (r.classList.contains('is-pinned') ? i : -1)).filter((i) => i >= 0));
        assert.ok(pinned.length >= 2, 'the heaviest now and planned are pinned');
        // rows at the top, in the middle and at the bottom of the window, around each pinned row, the last rows
        const cases = [[0, 'start'], [1, 'start'], [2, 'end'], [3, 'start'], [6, 'center'], [7, 'end'], [12, 'end'], [n - 2, 'start'], [n - 1, 'end'],
          ...pinned.flatMap((i) => [[i, 'end'], [i, 'center'], [i + 1, 'start'], [i + 2, 'end']])];
        const wrong = [];
        for (const [i, where] of cases) {
          const h = await hover(page, i, where, pinned);
          const bad = misplaced(h, height);
          if (bad.length) wrong.push(`hovering ${h.name} (${where}) the tooltip ${bad.join(', ')}: tooltip ${JSON.stringify(h.tip)}, row ${JSON.stringify(h.row)}`);
        }
        assert.deepEqual(wrong, [], `${width}×${height}`);
      }, { width, height });
    }
  });
}

/** Every field of the Timeline's cards: its box inside its card's box (left and right). */
async function outsideTheirCards(page) {
  return page.locator('.tl-events, .tl-settings').evaluateAll((cards) => cards.flatMap((card) => {
    const c = card.getBoundingClientRect();
    return [...card.querySelectorAll('select, input, button')].filter((e) => e.offsetParent).map((e) => {
      const r = e.getBoundingClientRect();
      return r.left < c.left - 0.5 || r.right > c.right + 0.5 ? `${e.getAttribute('aria-label') || e.textContent}: ${r.left}..${r.right} outside ${c.left}..${c.right}` : null;
    }).filter(Boolean);
  }));
}

for (const [name, size] of [['1400 px', { width: 1400, height: 1000 }], ['a phone', PHONE]]) {
  test(`the Timeline's selects and fields stay inside their cards, with B shown (${name})`, async () => {
    await withServedPage(chrome.browser, [], async (page) => {
      const run = () => page.evaluate(() => Number(document.querySelector('spate-planner').shadowRoot.querySelector('.timeline')?.dataset.run || 0));
      const ran = (n) => page.waitForFunction((k) => Number(document.querySelector('spate-planner').shadowRoot.querySelector('.timeline')?.dataset.run || 0) > k, n, { timeout: 120000 });
      await page.locator('.tl-settings').waitFor();
      await ran(0);
      assert.deepEqual(await outsideTheirCards(page), []);
      const runs = await run();
      await page.locator('.tl-settings label', { hasText: 'Compare with a second configuration' }).locator('input').check();
      await page.locator('.tl-config select[data-config="B"]').first().waitFor({ state: 'visible' });
      await ran(runs); // (the runs drawn before axe-core looks: a run under way dims the figures)
      assert.ok(await page.locator('.tl-config select[data-config="B"]').count() >= 2, 'B has its selects');
      assert.deepEqual(await outsideTheirCards(page), []);
    }, { url: '#tab=timeline', ...size });
  });
}

/**
 * The options of each select in `scope` whose text is wider than the select's room for it (its
 * content box less Chromium's 20 px drop-down arrow): of `which` ('selected' or 'all').
 */
function cutOptions(page, scope, which) {
  return page.locator(`${scope} select`).evaluateAll((selects, all) => {
    const ctx = document.createElement('canvas').getContext('2d');
    return selects.filter((s) => s.offsetParent).flatMap((s) => {
      const cs = getComputedStyle(s);
      ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
      const room = s.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 20;
      return [...(all ? s.options : s.selectedOptions)].map((o) => ({ what: `${s.getAttribute('aria-label')}: ${o.text}`, width: Math.round(ctx.measureText(o.text).width), room }))
        .filter((o) => o.width > o.room + 1); // (a select as wide as its longest option: within a pixel at a wall's zoom)
    });
  }, which === 'all');
}

for (const [width, height] of [[390, 844], [1400, 1000], [2560, 1440]]) {
  test(`${width} px: each of the Timeline's selects shows every option's whole text, with B shown`, async () => {
    await withServedPage(chrome.browser, [], async (page) => {
      const ran = (n) => page.waitForFunction((k) => Number(document.querySelector('spate-planner').shadowRoot.querySelector('.timeline')?.dataset.run || 0) > k, n, { timeout: 120000 });
      await page.locator('.tl-settings').waitFor();
      await ran(0);
      const runs = await page.evaluate(() => Number(document.querySelector('spate-planner').shadowRoot.querySelector('.timeline').dataset.run));
      await page.locator('.tl-settings label', { hasText: 'Compare with a second configuration' }).locator('input').check();
      await page.locator('.tl-config select[data-config="B"]').first().waitFor({ state: 'visible' });
      await ran(runs);
      assert.ok(await page.locator('.timeline select').count() >= 6, 'the event form, A, B and the chart have selects');
      assert.deepEqual(await cutOptions(page, '.timeline', 'all'), []);
    }, { url: '#tab=timeline', width, height });
  });
}

test("on a phone, each what-if form's select shows every option's whole text", async () => {
  await withServedPage(chrome.browser, [], async (page) => {
    await openWhatIf(page);
    const cut = await page.locator('form.change select').evaluateAll((selects) => {
      const ctx = document.createElement('canvas').getContext('2d');
      return selects.flatMap((s) => {
        const cs = getComputedStyle(s);
        ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
        // the room for text: the content box less the drop-down arrow (20 px in Chromium)
        const room = s.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 20;
        const form = s.closest('form').getBoundingClientRect();
        const box = s.getBoundingClientRect();
        const inside = box.left >= form.left && box.right <= form.right;
        return [...s.options].map((o) => ({ what: `${s.getAttribute('aria-label')}: ${o.text}`, width: ctx.measureText(o.text).width, room, inside }))
          .filter((o) => o.width > o.room || !o.inside);
      });
    });
    assert.ok(await page.locator('form[data-form="remove"] select[aria-label="how the member leaves"] option').count() === 3);
    assert.deepEqual(cut, []);
    // the chosen departure is explained under it
    const how = page.locator('form[data-form="remove"] select[aria-label="how the member leaves"]');
    await how.selectOption('graceful');
    assert.match(await page.locator('#departure-hint').textContent(), /released what it held/);
  }, PHONE);
});
