// The splits at risk of quarantine on the dashboard: the "At risk" tile shows the core's count
// (`at_risk` of `plan --json` for the same file) and each member holding any has a ⚠n mark on its
// bar with the core's count, and no other member has one; at a phone's width and a desktop's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, launch, watchedPage, outputDir, cli, ready, tile, axeViolations } from './browser.mjs';
import { thousands } from '../../web/common/shared/format.js';

let chrome;
let work;
before(async () => {
  chrome = await launch();
  await mkdir(outputDir, { recursive: true });
  work = await mkdtemp(join(tmpdir(), 'spate-e2e-risk-'));
});
after(async () => { await chrome?.close(); });

/**
 * A demo snapshot in which every fifth runnable split a worker records as its own is at attempts
 * 3 (one from Spate's default max_attempts 4). The file is edited as text, one entry a line, so
 * that no u64 passes through JSON.parse.
 */
async function riskySnapshot() {
  const demo = join(work, 'demo.json');
  const r = await cli(['demo', '--splits', '300', '--members', '12', '--seed', '7', '-o', demo]);
  assert.equal(r.status, 0, r.stderr);
  let n = 0;
  const lines = (await readFile(demo, 'utf8')).split('\n').map((line) => {
    if (!/"key":"split\./.test(line) || !/"status":"runnable"/.test(line) || !/"owner":"worker-/.test(line)) return line;
    n += 1;
    return n % 5 === 0 ? line.replace(/"attempts":\d+/, '"attempts":3') : line;
  });
  const file = join(work, 'risky.json');
  await writeFile(file, lines.join('\n'));
  return file;
}

/** The core's `at_risk` for `file`: `plan --json`'s. */
async function coreRisk(file) {
  const r = await cli(['plan', file, '--json']);
  assert.equal(r.status, 0, r.stderr);
  // counts and names only: no u64 of the document is read
  return JSON.parse(r.stdout).at_risk;
}

test('the At risk tile is the core count, and each member holding any has a mark with its count', async () => {
  const file = await riskySnapshot();
  const risk = await coreRisk(file);
  assert.ok(risk.count > 0 && Object.keys(risk.by_member).length > 1, JSON.stringify(risk));
  const server = await startServer([file]);
  try {
    for (const width of [1400, 390]) {
      const { page, problems } = await watchedPage(chrome.browser, { width, height: 900 });
      await page.goto(server.url);
      await ready(page);
      if (width < 600) await page.locator('.strip-line').click(); // a phone's strip opens to the tiles
      assert.equal(await tile(page, 'at-risk'), thousands(risk.count));
      const sub = await page.locator('.tile[data-tile="at-risk"] .sub').textContent();
      assert.equal(sub, 'of max_attempts 4');
      const help = await page.locator('.tile[data-tile="at-risk"]').getAttribute('title');
      assert.ok(help.includes(risk.headline) && help.includes("max_attempts 4, Spate's default"), help);
      // a mark on exactly the members the core counts, with its count
      const marks = await page.locator('.chart button[data-member]').evaluateAll((rows) => Object.fromEntries(rows
        .filter((b) => b.querySelector('.risk-mark'))
        .map((b) => [b.dataset.member, b.querySelector('.risk-mark').textContent])));
      const want = Object.fromEntries(Object.entries(risk.by_member).map(([m, k]) => [m, `⚠${k}`]));
      assert.deepEqual(marks, want);
      // the legend says what the mark means, since some member has one
      assert.match(await page.locator('.legend-slot .legend').textContent(), /splits at risk of quarantine/);
      // the mark sits on its row's bar track, visible
      const first = Object.keys(want)[0];
      const mark = page.locator(`.chart button[data-member="${first}"] .track .risk-mark`);
      assert.ok(await mark.isVisible());
      await page.locator('.tile[data-tile="at-risk"]').screenshot({ path: join(outputDir, `at-risk-tile-${width}.png`) });
      await page.locator(`.chart button[data-member="${first}"]`).screenshot({ path: join(outputDir, `at-risk-mark-${width}.png`) });
      assert.deepEqual(await axeViolations(page), []);
      assert.deepEqual(problems, []);
      await page.close();
    }
  } finally {
    server.stop();
  }
});

test('with no split at risk the legend has no at-risk mark to explain', async () => {
  const demo = join(work, 'safe.json');
  const r = await cli(['demo', '--splits', '120', '--members', '6', '--seed', '3', '-o', demo]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal((await coreRisk(demo)).count, 0, 'the demo has no split at attempts 3');
  const server = await startServer([demo]);
  try {
    const { page, problems } = await watchedPage(chrome.browser, { width: 1400, height: 900 });
    await page.goto(server.url);
    await ready(page);
    assert.equal(await page.locator('.chart .risk-mark').count(), 0);
    const legend = await page.locator('.legend-slot .legend').textContent();
    assert.ok(legend.includes('full: every lane used'), legend);
    assert.ok(!legend.includes('at risk'), legend);
    assert.deepEqual(problems, []);
    await page.close();
  } finally {
    server.stop();
  }
});
