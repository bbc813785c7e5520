// If the wasm module traps, the page says so, starts one fresh module, reloads the snapshot and
// keeps the user's scenario (it is in the URL). Runs on the test build (web/dist-test), the only
// one with a way to trap on purpose.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, watchedPage, ready, figure, applyForm, testDist, message, axeViolations } from './browser.mjs';

let chrome;
let server;
before(async () => { chrome = await launch(); server = await startServer(['--dir', testDist]); });
after(async () => { await chrome?.close(); server?.stop(); });

test('a trapped module is replaced once and the scenario survives', async () => {
  const { page, problems } = await watchedPage(chrome.browser);
  await page.goto(server.url);
  let n = await ready(page);
  await applyForm(page, 'add', { 'new member name': 'survivor' });
  n = await ready(page, n);
  const hash = new URL(page.url()).hash;
  const figures = await page.locator('.figures-table').textContent();

  await page.evaluate(() => document.querySelector('spate-planner').crashForTest());
  n = await ready(page, n);
  assert.match(await message(page), /The planner module failed.*unreachable.*scenario is kept/s);
  assert.equal(new URL(page.url()).hash, hash);
  assert.equal(await page.locator('.figures-table').textContent(), figures);
  assert.equal(await figure(page, 'members'), '25');
  assert.equal(await page.evaluate(() => document.querySelector('spate-planner').controller.client.restarts), 1);

  await page.locator('button', { hasText: 'Undo last change' }).click();
  await ready(page, n);
  assert.equal(await figure(page, 'members'), '24');
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a trap with three requests in flight starts one restart, and each request is answered', async () => {
  const { page, problems } = await watchedPage(chrome.browser);
  await page.goto(server.url);
  await ready(page);
  const out = await page.evaluate(async () => {
    const el = document.querySelector('spate-planner');
    const c = el.controller;
    const trap = c.client.raw('testTrap').catch((e) => e.code);
    const three = [c.ask('findSplits', { query: 'part-00000', limit: 5 }), c.ask('converge', { maxRounds: 5 }), c.ask('planJson')];
    const results = await Promise.all(three);
    return { trap: await trap, restarts: c.client.restarts, found: results[0].length, rounds: results[1].rounds.length, json: results[2].slice(0, 40) };
  });
  assert.equal(out.trap, 'wasm_trap');
  assert.equal(out.restarts, 1);
  assert.ok(out.found > 0);
  assert.ok(out.rounds > 0);
  assert.match(out.json, /^\{"format":"spate-planner-plan\/2"/);
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems, []);
  await page.close();
});
