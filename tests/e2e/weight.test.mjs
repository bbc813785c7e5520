// Page weight (issue 34): what the dashboard costs to open and to open again, in Chromium, as
// the real binary serves it (its files compressed when it was built; the wasm module, its glue
// and every module but the entry points named by their content and sent `immutable`, so a reload
// does not ask for them; the rest with an entity tag and `Cache-Control: no-cache`, so a reload is
// answered 304 with no body). Prints the figures. Goals: the first load under 1.2 MB transferred, a reload under 50 KB.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, watchedPage, ready } from './browser.mjs';

let chrome;
let server;
before(async () => {
  chrome = await launch();
  server = await startServer([]);
});
after(async () => { await chrome?.close(); server?.stop(); });

/**
 * Every request the page (and its worker) makes until `fn` resolves: its transferred bytes
 * (headers and body as received; 0 for a response the browser kept, which asks nothing of the
 * server), status and `Cache-Control`.
 */
async function transfers(page, fn) {
  const done = [];
  const finished = (req) => done.push(req);
  page.on('requestfinished', finished);
  await fn();
  // the last responses settle after the page says it is ready
  await page.waitForTimeout(500);
  page.off('requestfinished', finished);
  const rows = [];
  for (const req of done) {
    const sizes = await req.sizes();
    const res = await req.response();
    rows.push({ url: req.url(), status: res?.status() ?? 0, bytes: sizes.responseBodySize + sizes.responseHeadersSize, cache: res?.headers()['cache-control'] });
  }
  return rows;
}

const total = (rows) => rows.reduce((s, r) => s + r.bytes, 0);
/** The requests that reached the server (a response kept by the browser transfers nothing). */
const sent = (rows) => rows.filter((r) => r.bytes > 0);

test('the dashboard opens in under 1.2 MB and opens again in under 50 KB', async (t) => {
  const { page, problems } = await watchedPage(chrome.browser, { width: 1400, height: 900 });
  const first = await transfers(page, async () => {
    await page.goto(server.url);
    await ready(page);
  });
  const wasm = first.find((r) => r.url.endsWith('.wasm'));
  assert.ok(wasm, 'the module was fetched');
  // the module, its glue, the folders' modules (the worker's) and the page's modules joined,
  // named by their content (scripts/hash-names.mjs, bundle-page.mjs), are kept for good
  const named = first.filter((r) => /\.[0-9a-f]{16}\.(js|wasm)$/.test(r.url));
  assert.equal(named.filter((r) => /\/pkg\/spate_planner(_bg)?\./.test(r.url)).length, 2, first.map((r) => r.url).join(' '));
  assert.ok(named.some((r) => /\/shell\/worker\/first-load\.[0-9a-f]{16}\.js$/.test(r.url)), first.map((r) => r.url).join(' '));
  assert.equal(named.filter((r) => /\/page\.[0-9a-f]{16}\.js$/.test(r.url)).length, 1, first.map((r) => r.url).join(' '));
  for (const r of named) assert.equal(r.cache, 'public, max-age=31536000, immutable', r.url);
  assert.equal(first.find((r) => r.url.endsWith('/worker.js'))?.cache, 'no-cache');
  const again = await transfers(page, async () => {
    const plans = Number(await page.getAttribute('spate-planner', 'data-plans'));
    await page.reload();
    await ready(page, 0);
    assert.ok(plans >= 1);
  });
  const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
  // (a module both the page and its worker import is fetched once: the worker's is kept)
  t.diagnostic(`first load: ${sent(first).length} requests, ${kb(total(first))} transferred (the module ${kb(wasm.bytes)}); ${first.length - sent(first).length} files used as kept`);
  t.diagnostic(`reload: ${sent(again).length} requests, ${kb(total(again))} transferred; ${again.length - sent(again).length} files used as kept`);
  assert.deepEqual(sent(again).filter((r) => named.some((n) => n.url === r.url)), [], 'the named files are not asked for again');
  assert.ok(sent(again).length <= 12, `a reload asks for the entry points, stylesheets and little else: ${sent(again).map((r) => r.url).join(' ')}`);
  assert.ok(total(first) < 1.2e6, `first load ${total(first)} bytes`);
  assert.ok(total(again) < 50e3, `reload ${total(again)} bytes: ${JSON.stringify(again.filter((r) => r.bytes > 2000))}`);
  assert.ok(again.filter((r) => r.status === 200 && r.bytes > 2000).length === 0, 'nothing sent in full again');
  assert.deepEqual(problems, []);
  await page.close();
});
