// The dashboard in a real headless Chromium, served by the real binary.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { startServer, launch, watchedPage, outputDir } from './browser.mjs';

let server;
let chrome;
before(async () => {
  server = await startServer();
  chrome = await launch();
  await mkdir(outputDir, { recursive: true });
});
after(async () => {
  await chrome?.close();
  server?.stop();
});

test('the demo fleet renders from the wasm core, with no console errors or CSP violations', async () => {
  const { page, problems } = await watchedPage(chrome.browser);
  const resp = await page.goto(server.url);
  assert.match(resp.headers()['content-security-policy'], /script-src 'self' 'wasm-unsafe-eval'/);
  await page.waitForSelector('body[data-ready]', { timeout: 30000 });
  assert.equal(await page.getAttribute('body', 'data-ready'), 'true', await page.textContent('#status'));
  const rows = await page.$$eval('#fleet tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  assert.equal(rows.length, 39, 'one of the 40 demo members has left');
  for (const r of rows) {
    const [used, cap] = r[4].split('/').map(Number);
    assert.ok(used <= cap, `${r[0]}: lanes ${r[4]}`);
  }
  assert.match(await page.textContent('#status'), /Planned 2000 splits on 39 members/);
  await page.screenshot({ path: `${outputDir}/dashboard.png`, fullPage: true });
  assert.deepEqual(problems, []);
  await page.close();
});
