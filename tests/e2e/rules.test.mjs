// The decision rules in the dashboard (issue 24), in Debian's headless Chromium served by the
// real binary: the header names the release whose rules decide and where that comes from, in the
// core's words (`spate-planner plan --json`'s `rules_note`); the what-if panel's control plans the
// store by the other release's rules, as `plan --rules` does, and the link keeps the choice.
// Every page is checked by axe-core and for console errors and CSP violations.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, withServedPage, ready, cli } from './browser.mjs';
import { demo } from './review-fixtures.mjs';

let chrome;
let fleet;
before(async () => {
  chrome = await launch();
  const work = await mkdtemp(join(tmpdir(), 'spate-rules-'));
  fleet = await demo(work, 'job.json', ['--splits', '400', '--members', '6', '--job', 'rules']);
});
after(async () => { await chrome?.close(); });

/** `spate-planner plan --json` of the fixture, with `extra` flags. */
async function planDoc(extra = []) {
  const r = await cli(['plan', fleet, '--json', ...extra]);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

const rulesLine = async (page) => page.locator('.rules-line').evaluate((n) => ({ text: n.textContent, rules: n.dataset.rules, source: n.dataset.rulesSource }));

test('the header names the rules and their source as the core does; the what-if control plans by 0.3 as plan --rules 0.3, and the link keeps it', async () => {
  const detected = await planDoc();
  const chosen = await planDoc(['--rules', '0.3']);
  assert.equal(detected.rules, '0.1');
  assert.equal(chosen.rules, '0.3');
  assert.equal(chosen.rules_source, 'user');
  await withServedPage(chrome.browser, [fleet], async (page) => {
    assert.deepEqual(await rulesLine(page), { text: `Rules: ${detected.rules_note}`, rules: '0.1', source: detected.rules_source });
    const control = page.locator('select[aria-label="decision rules"]');
    assert.equal(await control.inputValue(), '');
    const n = await ready(page);
    await control.selectOption('0.3');
    await ready(page, n);
    assert.deepEqual(await rulesLine(page), { text: `Rules: ${chosen.rules_note}`, rules: '0.3', source: 'user' });
    // the choice is part of the scenario the link holds: opening the link plans by 0.3 again
    await page.waitForFunction(() => decodeURIComponent(location.hash).includes('"rules":"0.3"'));
    const link = await page.evaluate(() => location.href);
    await page.goto('about:blank');
    await page.goto(link);
    await ready(page, 0, 120000);
    assert.equal(await page.locator('select[aria-label="decision rules"]').inputValue(), '0.3');
    assert.equal((await rulesLine(page)).rules, '0.3');
  });
});
