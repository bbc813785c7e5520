// The dashboard embedded as a custom element, served from a deep base path by another static
// root: it finds its module, worker and wasm relative to itself, and no request leaves the origin.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, launch, watchedPage, repoRoot, axeViolations } from './browser.mjs';

let chrome;
before(async () => { chrome = await launch(); });
after(async () => { await chrome?.close(); });

test('the custom element works from any base path and emits plan-change', async () => {
  const root = await mkdtemp(join(tmpdir(), 'spate-embed-'));
  const deep = join(root, 'console', 'tools', 'planner');
  await mkdir(deep, { recursive: true });
  await cp(join(repoRoot, 'web/dist'), deep, { recursive: true });
  const server = await startServer(['--dir', root]);
  try {
    const { page, problems } = await watchedPage(chrome.browser);
    const requests = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(`${server.url}console/tools/planner/embed-example.html`);
    await page.waitForFunction(() => /splits assigned/.test(document.getElementById('last-plan').textContent), null, { timeout: 30000 });
    assert.match(await page.locator('#last-plan').textContent(), /^\d+ splits assigned, \d+ would move/);
    assert.equal(await page.locator('.chart button[data-member]').count(), 10);
    // the element takes the height of its content, not the viewport's
    const sizes = await page.locator('#embedded').evaluate((e) => {
      const inner = e.shadowRoot.querySelector('.planner');
      return { outer: Math.round(e.getBoundingClientRect().height), inner: Math.round(inner.getBoundingClientRect().height), min: getComputedStyle(inner).minHeight };
    });
    assert.equal(sizes.outer, sizes.inner);
    assert.equal(sizes.min, '0px');
    assert.deepEqual(await axeViolations(page), []);
    // The host page's own heading is untouched by the element's styles (shadow DOM).
    assert.equal(await page.locator('h1.console-title').textContent(), 'Ops console: job capacity');
    // The layout follows the element's width, not the window's: in a 620 px column of a
    // 1400 px window the what-if panel is a drawer; given the width, it sits beside the chart.
    const toggle = page.locator('#embedded .drawer-toggle');
    await page.locator('#embedded').evaluate((e) => { e.style.width = '620px'; });
    await page.waitForFunction(() => getComputedStyle(document.getElementById('embedded').shadowRoot.querySelector('.drawer-toggle')).display !== 'none');
    assert.equal(await toggle.isVisible(), true);
    await page.locator('#embedded').evaluate((e) => { e.style.width = '1100px'; });
    await page.waitForFunction(() => getComputedStyle(document.getElementById('embedded').shadowRoot.querySelector('.drawer-toggle')).display === 'none');
    assert.equal(await page.locator('#embedded form[data-form="add"]').isVisible(), true);
    // Attribute changes replan.
    const before = await page.locator('#last-plan').textContent();
    await page.evaluate(() => document.getElementById('embedded').setAttribute('default-cap', '1'));
    await page.waitForFunction((b) => document.getElementById('last-plan').textContent !== b, before);
    const origin = new URL(server.url).origin;
    assert.deepEqual(requests.filter((u) => !u.startsWith(origin) && !u.startsWith('blob:') && !u.startsWith('data:')), []);
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(problems, []);
    await page.close();
  } finally {
    server.stop();
  }
});

test('embedded: the element shows no title of its own and no buttons to open, paste or load another fleet; it still plans', async () => {
  const server = await startServer([]);
  try {
    const { page, problems } = await watchedPage(chrome.browser);
    await page.goto(`${server.url}embed-example.html`);
    await page.waitForFunction(() => /splits assigned/.test(document.getElementById('last-plan').textContent), null, { timeout: 30000 });
    const seen = await page.evaluate(async () => {
      const e = document.createElement('spate-planner');
      e.setAttribute('embedded', '');
      e.setAttribute('demo-splits', '60');
      e.setAttribute('demo-members', '5');
      e.id = 'bare';
      // in the console's place for it, as the only one on the page
      const first = document.getElementById('embedded');
      first.replaceWith(e);
      await e.ready;
      const root = e.shadowRoot;
      const buttons = [...root.querySelectorAll('.header button')].filter((b) => b.offsetParent !== null).map((b) => b.textContent);
      return { h1: root.querySelectorAll('h1').length, buttons, members: root.querySelectorAll('.chart button[data-member]').length, source: root.querySelector('.header .source').textContent };
    });
    assert.equal(seen.h1, 0);
    assert.deepEqual(seen.buttons, ['?']);
    assert.equal(seen.members, 5);
    assert.match(seen.source, /5 members, 60 splits/);
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(problems, []);
    await page.close();
  } finally {
    server.stop();
  }
});
