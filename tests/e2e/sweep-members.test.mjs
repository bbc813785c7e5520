// The Sweep tab over the fleet's size (issue 33): "how few members can I run with?". Below
// today's count each step loses members in the order picked (the lightest first: the least load
// now, ties the last by name first), each stopping gracefully; today's count is today's fleet;
// the verdict names the fewest members that meet the targets; the steps' CSV names who each
// smaller fleet loses (`removed`). Checked from those rules against the page's own plan, and the
// steps against `spate-planner sweep --members --json` and `--csv`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, withServedPage, cli } from './browser.mjs';

let chrome;
let file;
before(async () => {
  chrome = await launch();
  file = join(await mkdtemp(join(tmpdir(), 'spate-sweep-members-')), 'fleet.json');
  const r = await cli(['demo', '--splits', '600', '--members', '6', '--seed', '4', '--job', 'members', '-o', file]);
  assert.equal(r.status, 0, r.stderr);
});
after(async () => { await chrome?.close(); });

const natural = (a, b) => a.localeCompare(b, 'en', { numeric: true });

test('a sweep of the fleet size removes the lightest first and names the fewest members meeting the targets', async () => {
  await withServedPage(chrome.browser, [file], async (page) => {
    await page.locator('.tab[data-tab="sweep"]').click();
    // the tab's first look runs its default sweep (members added)
    await page.waitForSelector('.sweep[data-has-result="true"]', { timeout: 60000 });
    const state = () => page.evaluate(() => document.querySelector('spate-planner').controller.state);
    const members = (await state()).result.view.report.members.map((m) => ({ name: m.name, load: BigInt(m.load_now) }));
    assert.equal(members.length, 6);
    const lightestFirst = [...members].sort((a, b) => (a.load < b.load ? -1 : a.load > b.load ? 1 : natural(b.name, a.name))).map((m) => m.name);

    await page.locator('select[aria-label="what the sweep varies"]').selectOption('members_lightest_first');
    await page.locator('input[aria-label="target max/mean"]').fill('1.05');
    await page.locator('input[aria-label="target queued splits"]').fill('0');
    await page.locator('input[aria-label="sweep from"]').fill('1');
    await page.locator('input[aria-label="sweep to"]').fill('8');
    await page.locator('.sweep-form button[type=submit]').click();
    await page.waitForFunction(() => {
      const s = document.querySelector('spate-planner').controller.state;
      return !s.sweepRun && s.sweep?.params.axis === 'members_lightest_first' && s.sweep.params.to === 8 && s.sweep.text === s.result.text;
    }, undefined, { timeout: 60000 });
    const steps = (await state()).sweep.steps;
    assert.deepEqual(steps.map((s) => s.value), [1, 2, 3, 4, 5, 6, 7, 8]);
    for (const s of steps) {
      assert.equal(s.members, s.value);
      assert.deepEqual(s.removed ?? [], lightestFirst.slice(0, Math.max(0, 6 - s.value)), `step ${s.value}`);
    }
    assert.equal(await page.locator('.sweep-table tbody tr.is-now').getAttribute('data-value'), '6');
    // the table names who each smaller fleet loses
    const headers = await page.locator('.sweep-table thead th').allTextContents();
    const col = headers.findIndex((h) => h.startsWith('members removed'));
    assert.ok(col > 0, JSON.stringify(headers));
    assert.equal(await page.locator('.sweep-table tbody tr[data-value="4"] td').nth(col).textContent(), lightestFirst.slice(0, 2).join(', '));

    // the fewest members meeting the targets, by the targets' rule on the steps' figures
    const meets = steps.filter((s) => s.queued <= 0 && Number(s.max_over_mean) <= 1.05).map((s) => s.value);
    assert.ok(meets.length > 0, 'some fleet size meets the targets');
    const fewest = Math.min(...meets);
    const verdict = page.locator('.sweep-verdict');
    await page.waitForFunction((v) => document.querySelector('spate-planner').shadowRoot.querySelector('.sweep-verdict')?.dataset.value === v, String(fewest));
    assert.match(await verdict.textContent(), new RegExp(`^Fewest members meeting the targets \\(max/mean at most 1\\.05 and at most 0 queued\\): ${fewest} — ${fewest} members`));

    // the command line's steps are the page's
    const r = await cli(['sweep', file, '--members', '1..8', '--json']);
    assert.equal(r.status, 0, r.stderr);
    const strip = ({ mean_load: m, ...rest }) => rest;
    assert.deepEqual(JSON.parse(r.stdout).steps.map(strip), steps.map(strip));

    // the steps as CSV name who each smaller fleet loses, in a last column `removed`: the
    // command line's bytes
    const [dl] = await Promise.all([page.waitForEvent('download'), page.locator('button[data-csv="sweep"]').click()]);
    assert.equal(dl.suggestedFilename(), 'members-sweep.csv');
    const csv = (await readFile(await dl.path())).toString('utf8');
    const c = await cli(['sweep', file, '--members', '1..8', '--csv']);
    assert.equal(c.status, 0, c.stderr);
    assert.equal(csv, c.stdout);
    const records = csv.split('\r\n').filter(Boolean);
    assert.match(records[0], /,bound_hit,removed$/);
    steps.forEach((s, i) => {
      const names = s.removed ?? [];
      // (a demo fleet's names hold no quote: two or more names are one quoted field)
      const cell = names.length > 1 ? `"${names.join(', ')}"` : names.join('');
      assert.ok(records[i + 1].endsWith(`,${cell}`), `step ${s.value}: ${records[i + 1]}`);
    });
  });
});
