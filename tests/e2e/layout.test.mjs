// Any screen, any theme: at 390, 768, 1024, 1400 and 2560 px, light and dark, a what-if
// applied leaves the summary strip (a phone's one line) and the what-if result in view (not
// covered), the page does not overflow sideways, the tabs stay in one row (the selected one in
// view), and axe-core finds nothing. Screenshots go to tests/output/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { mkdir } from 'node:fs/promises';
import { startServer, launch, watchedPage, ready, applyForm, openWhatIf, axeViolations, outputDir, tile } from './browser.mjs';

let chrome;
let server;
before(async () => {
  chrome = await launch();
  server = await startServer([]);
  await mkdir(outputDir, { recursive: true });
});
after(async () => { await chrome?.close(); server?.stop(); });

/** True when the element is inside the viewport and what is drawn at its centre is itself. */
function visibleAndUncovered(page, selector) {
  return page.evaluate((sel) => {
    const root = document.querySelector('spate-planner').shadowRoot;
    const e = root.querySelector(sel);
    const r = e.getBoundingClientRect();
    if (!(r.height > 0 && r.top >= -1 && r.bottom <= innerHeight + 1 && r.left >= -1 && r.right <= innerWidth + 1)) return `${sel} is outside the viewport: ${JSON.stringify(r)}`;
    // (a sub-pixel edge is in view)
    const hit = root.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return e.contains(hit) ? 'ok' : `${sel} is covered by ${hit?.className || hit?.tagName}`;
  }, selector);
}

/**
 * The detail area's tabs: one row (never wrapped), and the last one, once selected, inside the
 * tab list's visible box (a narrow list scrolls sideways). Returns 'ok' or what is wrong.
 */
async function tabsInOneRow(page) {
  const rows = await page.evaluate(() => {
    const tabs = [...document.querySelector('spate-planner').shadowRoot.querySelectorAll('.tablist .tab:not([hidden])')];
    return new Set(tabs.map((t) => Math.round(t.getBoundingClientRect().top))).size;
  });
  if (rows !== 1) return `the tabs wrap into ${rows} rows`;
  // a row that scrolls says so: the end with tabs out of sight fades
  const sign = await page.evaluate(() => {
    const l = document.querySelector('spate-planner').shadowRoot.querySelector('.tablist');
    l.scrollLeft = 0;
    return new Promise((done) => requestAnimationFrame(() => done({
      scrolls: l.scrollWidth > l.clientWidth + 1, overflow: l.dataset.overflow, mask: getComputedStyle(l).maskImage,
    })));
  });
  if (sign.scrolls && (sign.overflow !== 'end' || sign.mask === 'none')) return `the tab row scrolls with no sign of it: ${JSON.stringify(sign)}`;
  if (!sign.scrolls && (sign.overflow !== 'none' || sign.mask !== 'none')) return `a tab row that fits is faded: ${JSON.stringify(sign)}`;
  return page.evaluate(async () => {
    const root = document.querySelector('spate-planner').shadowRoot;
    root.querySelector('.tab[data-tab="compare"]').click(); // (a script's click scrolls nothing itself)
    // the list scrolls to it in the next frame (shell/page/tabs.js)
    await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
    const t = root.querySelector('.tab[data-tab="compare"]').getBoundingClientRect();
    const l = root.querySelector('.tablist').getBoundingClientRect();
    return t.left >= l.left - 1 && t.right <= l.right + 1 ? 'ok' : `the selected tab is outside the tab list: ${t.left}–${t.right} of ${l.left}–${l.right}`;
  });
}

const WIDTHS = [[390, 844], [768, 1024], [1024, 768], [1400, 900], [2560, 1440]];

for (const theme of ['light', 'dark']) {
  for (const [width, height] of WIDTHS) {
    test(`${width} px, ${theme}: after Apply the summary strip and the what-if result are in view; no axe violation`, async () => {
      const { page, problems } = await watchedPage(chrome.browser, { width, height, theme });
      await page.goto(server.url);
      let n = await ready(page);
      assert.deepEqual(await axeViolations(page), []);
      const movesBefore = await tile(page, 'moves');
      await openWhatIf(page);
      await applyForm(page, 'add', { 'new member name': 'worker-new', 'new member cap': '64' });
      n = await ready(page, n);
      assert.notEqual(await tile(page, 'moves'), movesBefore);
      assert.match(await page.locator('form[data-form="add"] .form-done').textContent(), /Applied: add member worker-new \(cap 64\)/);
      // a phone's strip is one line (it opens to the tiles): that line is in view
      assert.equal(await visibleAndUncovered(page, width < 600 ? '.summary .strip-line' : '.summary .strip'), 'ok');
      assert.equal(await visibleAndUncovered(page, 'form[data-form="add"] .form-done'), 'ok');
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `the page overflows sideways by ${overflow}px`);
      assert.equal(await tabsInOneRow(page), 'ok');
      // the summary's tiles in full rows: no row holds fewer tiles than the last row's share
      // (8 tiles: 8, 4 + 4 or 2 × 4 rows; never 6 + 2 or 7 + 1)
      if (width >= 600) {
        const rows = await page.evaluate(() => {
          const tops = [...document.querySelector('spate-planner').shadowRoot.querySelectorAll('.summary .strip .tile')].map((t) => Math.round(t.getBoundingClientRect().top));
          const by = new Map();
          for (const t of tops) by.set(t, (by.get(t) ?? 0) + 1);
          return [...by.values()];
        });
        assert.ok(rows.every((n) => n === rows[0]), `the tiles' rows: ${rows.join(' + ')}`);
      }
      // the rules setting's button on a line of its own, under its select
      const rules = await page.evaluate(() => {
        const root = document.querySelector('spate-planner').shadowRoot;
        const select = root.querySelector('select[aria-label="decision rules"]').getBoundingClientRect();
        const both = [...root.querySelectorAll('.rules-setting button')][0].getBoundingClientRect();
        return { selectBottom: select.bottom, buttonTop: both.top };
      });
      if (width >= 600) assert.ok(rules.buttonTop >= rules.selectBottom - 1, `the button floats beside its select: ${JSON.stringify(rules)}`);
      // the dark theme is really dark, the light one light
      const bg = await page.locator('.planner').evaluate((e) => getComputedStyle(e).backgroundColor);
      const lum = bg.match(/\d+/g).slice(0, 3).map(Number).reduce((a, b) => a + b, 0) / 3;
      assert.ok(theme === 'dark' ? lum < 60 : lum > 200, `${theme} background ${bg}`);
      await page.screenshot({ path: join(outputDir, `layout-${width}-${theme}.png`) });
      assert.deepEqual(await axeViolations(page), []);
      assert.deepEqual(problems, []);
      await page.close();
    });
  }
}

test('theme="dark" on the element forces the dark theme under a light system preference', async () => {
  const { page, problems } = await watchedPage(chrome.browser, { theme: 'light' });
  await page.goto(`${server.url}?theme=dark`);
  await ready(page);
  const bg = await page.locator('.planner').evaluate((e) => getComputedStyle(e).backgroundColor);
  assert.equal(bg, 'rgb(11, 14, 18)');
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems, []);
  await page.close();
});

test('390 px: a mean far left on the load axis keeps its label on the screen', async () => {
  const { page, problems } = await watchedPage(chrome.browser, { width: 390, height: 844, theme: 'light' });
  await page.goto(server.url);
  const n = await ready(page);
  // sixty empty members: the means fall to a seventh of the heaviest load, near the axis' start
  const changes = Array.from({ length: 60 }, (_, i) => ({ op: 'add_member', member: `empty-${i}`, cap: 4 }));
  await page.evaluate((c) => document.querySelector('spate-planner').controller.setScenario({ defaultCap: null, rebalanceDelayMs: null, rules: null, changes: c }), changes);
  await ready(page, n);
  const boxes = await page.evaluate(() => {
    const root = document.querySelector('spate-planner').shadowRoot;
    const chart = root.querySelector('.chart').getBoundingClientRect();
    return [...root.querySelectorAll('.mean-line')].map((l) => {
      const r = l.querySelector('.mean-label').getBoundingClientRect();
      return { at: Number(l.style.getPropertyValue('--at')), left: r.left, right: r.right, chartLeft: chart.left, chartRight: chart.right, text: l.textContent };
    });
  });
  assert.equal(boxes.length, 2);
  for (const b of boxes) {
    assert.ok(b.at < 0.3, `the mean is near the start: ${JSON.stringify(b)}`);
    assert.ok(b.left >= b.chartLeft - 1 && b.right <= b.chartRight + 1 && b.left >= 0 && b.right <= 390, `the label is cut off: ${JSON.stringify(b)}`);
  }
  assert.deepEqual(problems, []);
  await page.close();
});

/** The number of lines the text of `e` takes (its line boxes' tops, a few pixels apart at most on one line). */
const LINES = `(e) => {
  const r = document.createRange();
  r.selectNodeContents(e);
  const tops = [...r.getClientRects()].filter((b) => b.width > 0).map((b) => b.top).sort((a, b) => a - b);
  return tops.filter((t, i) => i === 0 || t - tops[i - 1] > 4).length;
}`;

/**
 * At a wall's width: each of the header's lines on one line or wrapped no narrower than half the
 * header; each tile's value on one line; every tab (Live shown too: ten) inside the tab row's
 * visible box, the row not scrolling. Returns what is wrong.
 */
function wideProblems(page) {
  return page.evaluate((linesOf) => {
    const lines = (0, eval)(linesOf);
    const root = document.querySelector('spate-planner').shadowRoot;
    const out = [];
    const header = root.querySelector('.header').getBoundingClientRect();
    for (const p of root.querySelectorAll('.header .title p')) {
      const w = p.getBoundingClientRect().width;
      if (lines(p) > 1 && w < header.width / 2) out.push(`the header's line "${p.textContent.slice(0, 40)}…" wraps at ${Math.round(w)} px of ${Math.round(header.width)}`);
    }
    if (innerWidth < 2000) return out; // (a tablet's: only the header)
    for (const v of root.querySelectorAll('.strip .tile .value')) if (lines(v) !== 1) out.push(`the tile value "${v.textContent}" takes ${lines(v)} lines`);
    root.querySelector('.tab[data-tab="live"]').hidden = false;
    const list = root.querySelector('.tablist');
    const l = list.getBoundingClientRect();
    for (const t of list.querySelectorAll('.tab:not([hidden])')) {
      const b = t.getBoundingClientRect();
      if (b.left < l.left - 0.5 || b.right > l.right + 0.5) out.push(`the tab ${t.textContent} (${Math.round(b.left)}–${Math.round(b.right)}) is outside the tab row (${Math.round(l.left)}–${Math.round(l.right)})`);
    }
    if (list.scrollWidth > list.clientWidth) out.push(`the tab row scrolls: ${list.scrollWidth} px in ${list.clientWidth}`);
    root.querySelector('.tab[data-tab="live"]').hidden = true;
    return out;
  }, LINES);
}

test('390 px: the snapshot\'s date in the header is never broken inside, nor its time', async () => {
  const { page, problems } = await watchedPage(chrome.browser, { width: 390, height: 844 });
  await page.goto(server.url);
  await ready(page);
  // the lines each of the date and the time is drawn on (each found in one text node)
  const lines = await page.evaluate(() => {
    const source = document.querySelector('spate-planner').shadowRoot.querySelector('.header .source');
    const drawn = (pattern) => {
      const walk = document.createTreeWalker(source, NodeFilter.SHOW_TEXT);
      for (let n = walk.nextNode(); n; n = walk.nextNode()) {
        const m = pattern.exec(n.data);
        if (!m) continue;
        const range = document.createRange();
        range.setStart(n, m.index);
        range.setEnd(n, m.index + m[0].length);
        return { text: range.toString(), lines: new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size };
      }
      return { text: null, lines: 0 };
    };
    return { date: drawn(/\d{4}-\d\d-\d\d/), time: drawn(/\d\d:\d\d:\d\d UTC/) };
  });
  assert.equal(lines.date.text, '2026-01-01', 'the header names the day the snapshot was taken');
  assert.equal(lines.time.text, '00:00:00 UTC', 'and its time');
  assert.equal(lines.date.lines, 1, 'the date is drawn on one line');
  assert.equal(lines.time.lines, 1, 'the time is drawn on one line');
  assert.deepEqual(problems, []);
  await page.close();
});

test('768 px: the header\'s lines keep the width (its buttons go under them)', async () => {
  const { page, problems } = await watchedPage(chrome.browser, { width: 768, height: 1024 });
  await page.goto(server.url);
  await ready(page);
  assert.deepEqual(await wideProblems(page), []);
  assert.deepEqual(problems, []);
  await page.close();
});

for (const theme of ['light', 'dark']) {
  test(`2560 px, ${theme}: the header uses the width, each tile's value is one line, and all ten tabs fit their row`, async () => {
    const { page, problems } = await watchedPage(chrome.browser, { width: 2560, height: 1440, theme });
    await page.goto(server.url);
    await ready(page);
    assert.deepEqual(await wideProblems(page), []);
    assert.deepEqual(problems, []);
    await page.close();
  });
}

/** The tiles per row of the summary strip, top to bottom. */
function tileRows(page) {
  return page.evaluate(() => {
    const by = new Map();
    for (const t of document.querySelector('spate-planner').shadowRoot.querySelectorAll('.summary .strip .tile-cell')) {
      if (!t.getClientRects().length) continue;
      const top = Math.round(t.getBoundingClientRect().top);
      by.set(top, (by.get(top) ?? 0) + 1);
    }
    return [...by.entries()].sort((a, b) => a[0] - b[0]).map(([, n]) => n);
  });
}

for (const [width, height] of [[390, 844], [768, 1024], [1400, 900], [2560, 1440]]) {
  test(`${width} px: a tile's value breaks only after its arrow, never inside a figure; seven tiles leave none alone on a row`, async () => {
    const { page, problems } = await watchedPage(chrome.browser, { width, height });
    await page.goto(server.url);
    await ready(page);
    await openWhatIf(page);
    // the strip open on a phone (its one line opens to the tiles)
    if (width < 600) await page.locator('.summary .strip-line').click();
    const broken = await page.evaluate(() => {
      const values = [...document.querySelector('spate-planner').shadowRoot.querySelectorAll('.strip .tile .value')];
      /** The text of `v` from character `from` to `to` as a range (across its text nodes). */
      const span = (v, from, to) => {
        const r = document.createRange();
        const walk = document.createTreeWalker(v, NodeFilter.SHOW_TEXT);
        for (let at = 0, n = walk.nextNode(); n; at += n.length, n = walk.nextNode()) {
          if (from >= at && from <= at + n.length) r.setStart(n, from - at);
          if (to >= at && to <= at + n.length) { r.setEnd(n, to - at); break; }
        }
        return r;
      };
      // each figure ("35.0 GiB" of "35.0 GiB → 20.6 GiB") on one line
      return values.flatMap((v) => {
        let at = 0;
        return v.textContent.split(' → ').flatMap((figure) => {
          const r = span(v, at, at + figure.length);
          at += figure.length + 3;
          const tops = [...r.getClientRects()].filter((b) => b.width > 0).map((b) => b.top).sort((a, b) => a - b);
          return tops.at(-1) - tops[0] > 4 ? [`"${figure}" of "${v.textContent}" breaks inside`] : [];
        });
      });
    });
    assert.deepEqual(broken, []);
    const eight = await tileRows(page);
    assert.equal(eight.reduce((a, b) => a + b, 0), 8);
    // a fleet whose seventh tile is the last (one tile fewer): no row of one, but for a phone's
    // tiles two abreast, where the seventh takes the row's width
    await page.locator('.summary .strip .tile-cell').last().evaluate((e) => e.remove());
    const seven = await tileRows(page);
    const spans = await page.locator('.summary .strip').evaluate((s) => s.lastElementChild.getBoundingClientRect().width >= s.getBoundingClientRect().width - 2);
    assert.ok(seven.length === 1 || seven.at(-1) >= 2 || (width < 600 && spans), `seven tiles in rows of ${seven.join(' + ')}`);
    assert.deepEqual(problems, []);
    await page.close();
  });
}
