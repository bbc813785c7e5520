// Bad input in the page: a refused snapshot says why (code, bucket, key) and the fleet shown
// stays; a 1 GiB file is refused before anything reads it; a broken link's scenario is reported.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile, open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, launch, watchedPage, ready, figure, cli, axeViolations, outputDir } from './browser.mjs';

let chrome;
let server;
let dir;
before(async () => {
  chrome = await launch();
  server = await startServer([]);
  dir = await mkdtemp(join(tmpdir(), 'spate-bad-'));
});
after(async () => { await chrome?.close(); server?.stop(); });

test('a snapshot with a record of another schema is refused, naming bucket and key; the fleet stays', async () => {
  const good = join(dir, 'good.json');
  assert.equal((await cli(['demo', '--splits', '40', '--members', '3', '--job', 'badjob', '-o', good])).status, 0);
  const text = (await import('node:fs')).readFileSync(good, 'utf8')
    .replace(/("key":"split\.part-000000".*?"schema":)3/, '$19');
  const bad = join(dir, 'bad.json');
  await writeFile(bad, text);
  const { page, problems } = await watchedPage(chrome.browser);
  await page.goto(server.url);
  const n = await ready(page);
  await page.locator('input[type=file]').setInputFiles(bad);
  await page.waitForSelector('.message');
  const message = await page.locator('.message').textContent();
  assert.match(message, /bad\.json could not be loaded; the fleet shown is unchanged/);
  assert.match(message, /spate_coordination_badjob_state/);
  assert.match(message, /split\.part-0000/);
  assert.match(message, /code: wrong_schema/);
  assert.equal(await page.getAttribute('.message', 'data-code'), 'wrong_schema');
  assert.equal(await figure(page, 'members'), '24', 'the demo fleet is still shown');
  assert.equal(Number(await page.getAttribute('spate-planner', 'data-plans')), n);
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a 1 GiB file is refused at once, before it is read', async () => {
  const huge = join(dir, 'huge.json');
  const fh = await open(huge, 'w');
  await fh.truncate(1024 * 1024 * 1024);
  await fh.close();
  const { page, problems } = await watchedPage(chrome.browser);
  await page.goto(server.url);
  await ready(page);
  const t0 = Date.now();
  await page.locator('input[type=file]').setInputFiles(huge);
  await page.waitForSelector('.message');
  assert.ok(Date.now() - t0 < 10000);
  assert.match(await page.locator('.message').textContent(), /huge\.json is 1024 MiB; the dashboard accepts at most 512 MiB.*code: too_large/s);
  assert.equal(await figure(page, 'members'), '24');
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a link whose scenario cannot be read says so and plans without it', async () => {
  const { page, problems } = await watchedPage(chrome.browser);
  await page.goto(`${server.url}#scenario=%7Bnot-json`);
  await ready(page);
  assert.match(await page.locator('.message').textContent(), /The link's scenario could not be read/);
  assert.equal(await figure(page, 'members'), '24');
  // a scenario naming a member that does not exist is refused by the core, with its path
  await page.goto(`${server.url}#scenario=${encodeURIComponent('{"changes":[{"op":"set_cap","member":"nobody","cap":1}]}')}`);
  await page.waitForSelector('.message');
  assert.match(await page.locator('.message').textContent(), /A change of the link no longer applies; the rest are shown.*change 1 \(cap of nobody: 1\).*at changes\[0\]\.member.*code: unknown_member/s);
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a broken ?snapshot= link names the link\'s file and what failed, not the served file, and offers nothing to act on', async () => {
  const big = join(dir, 'big.json');
  assert.equal((await cli(['demo', '--splits', '40', '--members', '3', '--job', 'bigjob', '-o', big])).status, 0);
  const served = await startServer([big]);
  try {
    for (const [path, why] of [['/nope.json', /404/], ['/healthz', /not JSON|not a snapshot|invalid|expected/i]]) {
      const { page, problems } = await watchedPage(chrome.browser);
      await page.goto(`${served.url}?snapshot=${encodeURIComponent(path)}`);
      await page.waitForSelector('.message');
      const message = await page.locator('.message').textContent();
      assert.ok(message.includes(`${path} could not be loaded`), message);
      assert.ok(!message.includes('big.json'), `the served file is not the one that failed: ${message}`);
      assert.match(message, why);
      // nothing shown, so nothing to apply: no enabled what-if button, no fleet
      const enabled = await page.evaluate(() => {
        const root = document.querySelector('spate-planner').shadowRoot;
        return [...root.querySelectorAll('.side button, .side input, .side select')].filter((b) => !b.disabled && b.offsetParent !== null).map((b) => b.textContent || b.name || b.type);
      });
      assert.deepEqual(enabled, [], `what-if controls offered with nothing loaded: ${JSON.stringify(enabled)}`);
      await page.screenshot({ path: join(outputDir, `broken-link${path.replace(/\W+/g, '-')}.png`) });
      problems.splice(0, problems.length, ...problems.filter((p) => !/status of 404|Failed to load resource/.test(p)));
      assert.deepEqual(problems, []);
      await page.close();
    }
  } finally {
    served.stop();
  }
});

test('a link with an order the page does not know: the chart is in name order, the select says so, and a warning names the order', async () => {
  const { page, problems } = await watchedPage(chrome.browser);
  await page.goto(`${server.url}#order=sideways`);
  await ready(page);
  assert.equal(await page.locator('select[aria-label="Order the members by"]').inputValue(), 'name');
  await page.waitForSelector('.message');
  const message = await page.locator('.message').textContent();
  assert.match(message, /The link's order could not be used/);
  assert.match(message, /"sideways", which this page does not know \(it knows name, now, planned, change\); they are ordered by name/);
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems, []);
  await page.close();
});
