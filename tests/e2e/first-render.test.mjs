// The first render's order of work in Debian's headless Chromium, served by the real binary
// (issue 34): the stand-alone page starts the planner's worker, which fetches the snapshot the
// page names before the element is defined (shell/page/early.js), and the snapshot is fetched
// once; the fleet chart's printout rows (every folded member) are not drawn with the
// first frame but once the page is idle, and at once before printing, each member's row as the
// core describes it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, startServer, watchedPage, ready, cli } from './browser.mjs';

let chrome;
let work;
let fleet;
before(async () => {
  chrome = await launch();
  work = await mkdtemp(join(tmpdir(), 'spate-first-render-'));
  fleet = join(work, 'fleet.json');
  const made = await cli(['demo', '--splits', '3000', '--members', '60', '--job', 'first', '-o', fleet]);
  assert.equal(made.status, 0, made.stderr);
});
after(async () => {
  await chrome?.close();
  await rm(work, { recursive: true, force: true });
});

/** Runs `fn(page, server)` on the served snapshot; fails on console errors or CSP violations. */
async function withPage(fn) {
  const server = await startServer([fleet]);
  const { page, problems } = await watchedPage(chrome.browser);
  try {
    await fn(page, server);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
    server.stop();
  }
}

test('the page starts the worker, which asks for the snapshot before the element is defined, and asks once', async () => {
  await withPage(async (page, server) => {
    const snapshots = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/snapshot.json') snapshots.push(r.url());
    });
    // when the element is defined, on the clock the worker's resource timings use
    await page.addInitScript(() => {
      const define = customElements.define.bind(customElements);
      customElements.define = (name, ...rest) => {
        if (name === 'spate-planner') window.__definedAt = performance.timeOrigin + performance.now();
        return define(name, ...rest);
      };
    });
    await page.goto(server.url);
    await ready(page);
    const href = new URL('snapshot.json', server.url).href;
    assert.deepEqual(snapshots, [href], 'one request for the snapshot');
    const worker = page.workers().find((w) => new URL(w.url()).pathname === '/worker-start.js');
    assert.equal(new URL(worker.url()).searchParams.get('prefetch'), href, "the worker's URL names the snapshot");
    const askedAt = await worker.evaluate((url) => {
      const r = performance.getEntriesByType('resource').find((e) => e.name === url);
      return r ? performance.timeOrigin + r.startTime : null;
    }, href);
    const definedAt = await page.evaluate(() => window.__definedAt);
    assert.ok(askedAt !== null && definedAt !== undefined, `asked at ${askedAt}, defined at ${definedAt}`);
    assert.ok(askedAt < definedAt, `the snapshot was asked for ${(askedAt - definedAt).toFixed(1)} ms after the element was defined`);
    const info = await page.evaluate(() => document.querySelector('spate-planner').controller.state.info);
    assert.equal(info.job, 'first');
    assert.equal(info.members.length, 60);
  });
});

test('the fleet chart\'s printout rows are drawn once the page is idle after the first frame, and at once before printing, then with every draw', async () => {
  await withPage(async (page, server) => {
    // at the first plan-change: the printout rows there, and after a `beforeprint`
    await page.addInitScript(() => {
      addEventListener('plan-change', () => {
        const rows = () => document.querySelector('spate-planner').shadowRoot.querySelectorAll('.chart .rows [data-print-member]').length;
        const first = rows();
        dispatchEvent(new Event('beforeprint'));
        window.__paper = { first, printing: rows() };
      }, { once: true });
    });
    await page.goto(server.url);
    await ready(page);
    const { first, printing } = await page.evaluate(() => window.__paper);
    const rows = await page.evaluate(() => {
      const root = document.querySelector('spate-planner').shadowRoot;
      return {
        screen: [...root.querySelectorAll('.chart .rows button.member')].map((b) => b.dataset.member),
        paper: [...root.querySelectorAll('.chart .rows [data-print-member]')].map((d) => d.dataset.printMember),
        members: document.querySelector('spate-planner').controller.state.result.view.report.members.map((m) => m.name),
      };
    });
    assert.equal(first, 0, 'no printout row in the first frame');
    assert.equal(rows.screen.length + printing, 60, 'before printing: a row for every member');
    // every member on paper once: the screen's rows and the printout's
    assert.deepEqual([...rows.screen, ...rows.paper].sort(), [...rows.members].sort());
    // and once drawn, a redraw of the chart (another order) draws them with it, in place: never a
    // moment without them (the fewest seen by an observer of the rows' changes)
    await page.evaluate(() => {
      const rows = document.querySelector('spate-planner').shadowRoot.querySelector('.chart .rows');
      window.__fewest = Infinity;
      new MutationObserver(() => {
        window.__fewest = Math.min(window.__fewest, rows.querySelectorAll('[data-print-member]').length);
      }).observe(rows, { childList: true, subtree: true });
    });
    await page.locator('select[aria-label="Order the members by"]').first().selectOption('change');
    await page.waitForFunction(() => {
      const root = document.querySelector('spate-planner').shadowRoot;
      return root.querySelectorAll('.chart .rows button.member').length + root.querySelectorAll('.chart .rows [data-print-member]').length === 60
        && window.__fewest < Infinity;
    });
    assert.ok(await page.evaluate(() => window.__fewest > 0), 'the printout rows stay through the redraw');
    const [name, text] = await page.locator('.chart .rows [data-print-member]').first().evaluate((d) => [d.dataset.printMember, d.textContent]);
    assert.ok(text.startsWith(name), text);
  });
});
