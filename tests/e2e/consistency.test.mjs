// One state, one direction: the page never shows one fleet's header above another's figures,
// and every failure reaches the person. Runs on the test build (web/dist-test), whose hooks
// make a request fail on purpose.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, launch, watchedPage, ready, figure, testDist, message, cli, applyForm, axeViolations } from './browser.mjs';

let chrome;
let dir;
before(async () => { chrome = await launch(); dir = await mkdtemp(join(tmpdir(), 'spate-consistency-')); });
after(async () => { await chrome?.close(); });

async function snapshot(name, args) {
  const file = join(dir, name);
  const r = await cli(['demo', ...args, '-o', file]);
  assert.equal(r.status, 0, r.stderr);
  return file;
}

async function withPage(serverArgs, fn) {
  const server = await startServer(['--dir', testDist, ...serverArgs]);
  const { page, problems } = await watchedPage(chrome.browser);
  try {
    await fn(page, server);
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
    server.stop();
  }
}

function waitMessage(page, re) {
  return page.waitForFunction((source) => new RegExp(source, 's').test(document.querySelector('spate-planner').shadowRoot.querySelector('.message')?.textContent || ''), re.source);
}

test('a snapshot whose info() fails is refused; the fleet shown and the worker\'s fleet stay the old one', async () => {
  const file = await snapshot('small.json', ['--splits', '50', '--members', '3', '--job', 'small']);
  await withPage([], async (page, server) => {
    await page.goto(server.url);
    const n = await ready(page);
    await page.evaluate(() => document.querySelector('spate-planner').failNextInfoForTest());
    await page.locator('input[type=file]').setInputFiles(file);
    await waitMessage(page, /small\.json could not be loaded; the fleet shown is unchanged.*info\(\) failed \(forced by the test build\)/);
    assert.match(await page.locator('.source').textContent(), /job demo/);
    assert.equal(await figure(page, 'members'), '24');
    assert.equal(Number(await page.getAttribute('spate-planner', 'data-plans')), n);
    // the worker kept the demo fleet too: a request for it is answered from it
    const job = await page.evaluate(async () => JSON.parse(await document.querySelector('spate-planner').controller.ask('planJson')).job);
    assert.equal(job, 'demo');
  });
});

test('two loads that interleave: the one asked for last is shown, header and figures alike', async () => {
  const big = await snapshot('big.json', ['--splits', '60000', '--members', '40', '--job', 'slow']);
  await withPage([big], async (page, server) => {
    await page.goto(server.url);
    await ready(page, 0, 60000);
    assert.match(await page.locator('.source').textContent(), /job slow/);
    const out = await page.evaluate(async () => {
      const c = document.querySelector('spate-planner').controller;
      const slow = c.loadUrl('snapshot.json');
      const fast = c.loadDemo({ splits: 500, members: 7 });
      const [a, b] = await Promise.all([slow, fast]);
      const json = JSON.parse(await c.ask('planJson'));
      return { slowShown: a, fastShown: b, job: c.state.info.job, members: c.state.result.view.report.members.length, worker: json.job };
    });
    assert.deepEqual(out, { slowShown: false, fastShown: true, job: 'demo', members: 7, worker: 'demo' });
    assert.match(await page.locator('.source').textContent(), /job demo/);
    assert.equal(await page.locator('.chart button[data-member]').count(), 7);
  });
});

test('a scenario naming members of the old fleet, on a new snapshot: the new fleet shows, the change is marked', async () => {
  const file = await snapshot('other.json', ['--splits', '80', '--members', '3', '--job', 'other']);
  const text = await readFile(file, 'utf8');
  await withPage([], async (page, server) => {
    const link = encodeURIComponent('{"changes":[{"op":"set_cap","member":"worker-09","cap":2},{"op":"add_member","member":"extra"}]}');
    await page.goto(`${server.url}#scenario=${link}`);
    let n = await ready(page);
    await page.locator('button', { hasText: 'Paste…' }).click();
    await page.locator('textarea[aria-label="snapshot text"]').fill(text);
    await page.locator('button', { hasText: 'Load pasted snapshot' }).click();
    n = await ready(page, n);
    assert.match(await page.locator('.source').textContent(), /job other \(pasted\)/);
    assert.equal(await page.locator('.chart button[data-member]').count(), 4); // 3 members + extra
    assert.match(await page.locator('ol.changes li[data-change="0"]').textContent(), /not applied: .*worker-09.*\(unknown_member\)/);
    assert.equal(await page.locator('ol.changes li.failing').count(), 1);
    assert.match(await message(page), /A change of the scenario no longer applies; the rest are shown.*change 1 \(cap of worker-09: 2\)/s);
    assert.deepEqual(await axeViolations(page), []);
  });
});

test('a link made on another snapshot says so and applies what still applies', async () => {
  await withPage([], async (page, server) => {
    const link = encodeURIComponent('{"changes":[{"op":"remove_member","member":"nobody-here"},{"op":"add_member","member":"w-new"}]}');
    await page.goto(`${server.url}#scenario=${link}&snapshot=orders@1764547200000`);
    await ready(page);
    assert.match(await message(page), /This link was made on another snapshot.*It names snapshot orders@1764547200000; this page shows demo@\d+.*change 1 \(remove nobody-here/s);
    assert.equal(await page.locator('.chart button[data-member="w-new"]').count(), 1);
  });
});

test('every failed request reaches the person: exports, search, suggestions, claims, rounds, table, demo load, replan', async () => {
  await withPage([], async (page, server) => {
    await page.goto(server.url);
    let n = await ready(page);
    const fail = (op) => page.evaluate((o) => document.querySelector('spate-planner').failNextForTest(o), op);
    const dismiss = () => page.locator('.message button').click();

    await fail('planJson');
    await page.locator('button', { hasText: 'Plan JSON' }).click();
    await waitMessage(page, /The export failed.*planJson failed \(forced/);
    await dismiss();

    await fail('reviewReport');
    await page.locator('button', { hasText: 'Report (Markdown)' }).click();
    await waitMessage(page, /The export failed.*reviewReport failed \(forced/);
    await dismiss();

    await fail('fleetChart');
    await page.locator('button', { hasText: 'Chart SVG' }).click();
    await waitMessage(page, /The export failed.*fleetChart failed \(forced/);
    await dismiss();

    await fail('moves');
    await page.locator('.moves th[data-key="split"] button').click();
    await waitMessage(page, /The moves could not be shown.*moves failed \(forced/);
    await dismiss();

    await page.locator('.tab[data-tab="splits"]').click();
    await fail('findSplits');
    await page.locator('input[aria-label="search splits"]').fill('part-0001');
    await waitMessage(page, /The split search failed.*findSplits failed \(forced/);
    await dismiss();

    await fail('findSplits');
    await page.locator('input[aria-label="split whose weight to change"]').fill('part-00');
    await page.waitForFunction(() => /Split suggestions failed: findSplits failed/.test(document.querySelector('spate-planner').shadowRoot.querySelector('.summary .status').textContent));

    await fail('claims');
    await page.locator('.tab[data-tab="claims"]').click();
    await waitMessage(page, /The claims could not be listed.*claims failed \(forced/);
    await dismiss();

    await page.locator('.tab[data-tab="convergence"]').click();
    await fail('converge');
    await page.locator('button', { hasText: 'Run rounds' }).click();
    await waitMessage(page, /The rounds could not be run.*converge failed \(forced/);
    await dismiss();

    // rounds of a plan replaced while they ran are not shown, and the page says why
    await page.evaluate(() => document.querySelector('spate-planner').holdNextForTest('converge'));
    await page.locator('button', { hasText: 'Run rounds' }).click();
    await applyForm(page, 'add', { 'new member name': 'w-x' });
    n = await ready(page, n);
    await page.evaluate(() => document.querySelector('spate-planner').releaseForTest());
    await waitMessage(page, /The rounds could not be run.*the plan changed while they ran \(a what-if\).*run them again.*plan_changed/);
    assert.equal(await page.locator('.convergence [data-rounds]').count(), 0, 'no rounds shown');
    await dismiss();
    await page.locator('button', { hasText: 'Run rounds' }).click();
    await page.locator('.convergence [data-rounds]').waitFor();
    await fail('analyse');
    await page.locator('button', { hasText: 'Undo last change' }).click();
    await waitMessage(page, /The plan could not be made.*analyse failed \(forced/);
    await dismiss();

    await fail('load');
    await page.locator('button', { hasText: 'Demo fleet' }).click();
    await waitMessage(page, /the built-in demo fleet could not be loaded; the fleet shown is unchanged.*load failed \(forced/);
    assert.equal(await figure(page, 'members'), '25');
  });
});
