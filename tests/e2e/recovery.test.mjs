// If the wasm module traps, the page says so, starts a fresh module, reloads the snapshot and
// keeps the user's scenario (it is in the URL).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, watchedPage, ready, figure } from './browser.mjs';

let chrome;
let server;
before(async () => { chrome = await launch(); server = await startServer([]); });
after(async () => { await chrome?.close(); server?.stop(); });

test('a trapped module is replaced and the scenario survives', async () => {
  const { page, problems } = await watchedPage(chrome.browser);
  await page.goto(server.url);
  let n = await ready(page);
  await page.locator('input[aria-label="new member name"]').fill('survivor');
  await page.locator('form.change', { hasText: 'Add a member' }).locator('button').click();
  n = await ready(page, n);
  const hash = new URL(page.url()).hash;
  const figures = await page.locator('.figures-table').textContent();

  await page.evaluate(() => document.querySelector('spate-planner').crashForTest());
  n = await ready(page, n);
  assert.match(await page.locator('.error').textContent(), /The planner module failed.*unreachable.*scenario is kept/s);
  assert.equal(new URL(page.url()).hash, hash);
  assert.equal(await page.locator('.figures-table').textContent(), figures);
  assert.equal(await figure(page, 'members'), '25');
  assert.equal(await page.evaluate(() => document.querySelector('spate-planner').app.client.restarts), 1);

  // and it keeps working
  await page.locator('button', { hasText: 'Undo last change' }).click();
  await ready(page, n);
  assert.equal(await figure(page, 'members'), '24');
  assert.deepEqual(problems, []);
  await page.close();
});
