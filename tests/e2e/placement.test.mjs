// Where things sit (issue 33): the chart's tooltip never covers the row hovered, the rows on
// either side of it, or the pinned rows (the heaviest now and planned); the Timeline's fields
// stay inside their card at 1400 px and on a phone, with configuration B shown; on a phone the
// what-if forms' selects show each option's whole text.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, withServedPage, openWhatIf } from './browser.mjs';

let chrome;
before(async () => { chrome = await launch(); });
after(async () => { await chrome?.close(); });

const PHONE = { width: 390, height: 844, touch: true };

/** Whether two rectangles share any area. */
const overlap = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** Hovers row `i` (scrolled to `where` in the window) and returns the tooltip's box and those it must keep clear of. */
async function hover(page, i, where) {
  const rows = page.locator('.chart button[data-member]');
  await rows.nth(i).evaluate((e, block) => e.scrollIntoView({ block }), where);
  const b = await rows.nth(i).boundingBox();
  await page.mouse.move(b.x + 40, b.y + b.height / 2);
  await page.mouse.move(b.x + 48, b.y + b.height / 2);
  await page.locator('.tooltip:not([hidden])').waitFor();
  const tip = await page.locator('.tooltip').boundingBox();
  const keep = [b];
  for (const j of [i - 1, i + 1]) if (j >= 0 && j < await rows.count()) keep.push(await rows.nth(j).boundingBox());
  const pinned = await page.locator('.chart button.is-pinned').all();
  assert.ok(pinned.length >= 2, 'the heaviest now and planned are pinned');
  for (const p of pinned) keep.push(await p.boundingBox());
  const name = await rows.nth(i).getAttribute('data-member');
  await page.mouse.move(2, 2);
  return { tip, keep, name };
}

test('the tooltip covers neither the row hovered, nor its neighbours, nor the pinned rows', async () => {
  for (const height of [1000, 700]) {
    await withServedPage(chrome.browser, [], async (page) => {
      const n = await page.locator('.chart button[data-member]').count();
      // a row at the top, in the middle and at the bottom of the window, each pinned row, the last row
      const pinned = await page.locator('.chart button[data-member]').evaluateAll((rows) => rows.map((r, i) => (r.classList.contains('is-pinned') ? i : -1)).filter((i) => i >= 0));
      const cases = [[1, 'start'], [6, 'center'], [7, 'end'], [12, 'end'], ...pinned.map((i) => [i, 'end']), ...pinned.map((i) => [i + 1, 'start']), [n - 1, 'end']];
      for (const [i, where] of cases) {
        const { tip, keep, name } = await hover(page, i, where);
        for (const k of keep) assert.ok(!overlap(tip, k), `${height} px: hovering ${name} (${where}), the tooltip ${JSON.stringify(tip)} covers ${JSON.stringify(k)}`);
        assert.ok(tip.y >= 0 && tip.y + tip.height <= height, `${height} px: hovering ${name}, the tooltip is in the window: ${JSON.stringify(tip)}`);
      }
    }, { width: 1400, height });
  }
});

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
