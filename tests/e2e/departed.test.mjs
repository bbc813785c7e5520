// Departed instances on the page (issue 33): a member a what-if removes is listed under
// Departed, saying how it left; and the findings say what the rules make of each departure
// (timing.md 3.2 and 5.3, decision-core.md 7): a graceful stop releases the splits it held, so
// nothing of them is withheld; a crash leaves its splits in its name, withheld for the rebalance
// delay. The demo fleet, with worker-05 stopped gracefully and worker-07 crashed; what the rules
// make of worker-05's stop is read from the snapshot's records.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, withServedPage, ready, openWhatIf, cli } from './browser.mjs';

let chrome;
let file;
/** What the rules make of a graceful stop of worker-05 in the snapshot: { released, withheld }. */
let rule;
before(async () => {
  chrome = await launch();
  file = join(await mkdtemp(join(tmpdir(), 'spate-departed-')), 'demo.json');
  const r = await cli(['demo', '-o', file]);
  assert.equal(r.status, 0, r.stderr);
  rule = gracefulStop(JSON.parse(await readFile(file, 'utf8')), 'worker-05');
});
after(async () => { await chrome?.close(); });

/**
 * A graceful stop of `who` by the rules, from the store: it releases each split it holds (a lease
 * under its presence's nonce); the splits still naming it as owner that it does not hold, and
 * that the leader would place (runnable, not completed, with a spec), stay withheld.
 */
function gracefulStop(snapshot, who) {
  const value = (bucket, key) => snapshot[bucket].entries.find((e) => e.key === key)?.value;
  const nonce = value('lease', `worker.${who}`).nonce;
  const held = new Set(snapshot.lease.entries.filter((e) => e.key.startsWith('split.') && e.value.owner === who && e.value.nonce === nonce).map((e) => e.key));
  let withheld = 0;
  for (const e of snapshot.state.entries) {
    if (!e.key.startsWith('split.') || e.value.owner !== who || held.has(e.key)) continue;
    const placeable = e.value.status === 'runnable' && !e.value.completed && value('state', `spec.${e.value.id}`);
    if (placeable) withheld += 1;
  }
  return { released: held.size, withheld };
}

const SCENARIO = { changes: [
  { op: 'remove_member', member: 'worker-05', departure: 'graceful' },
  { op: 'remove_member', member: 'worker-07', departure: 'crash' },
] };
const url = `#scenario=${encodeURIComponent(JSON.stringify(SCENARIO))}`;

const findingOf = async (page, who) => {
  const all = await page.locator('.finding').allTextContents();
  const mine = all.filter((t) => t.includes(`"${who}"`));
  assert.equal(mine.length, 1, `one finding names ${who}: ${JSON.stringify(all)}`);
  return mine[0];
};

test('a member a what-if removes is listed under Departed, with how it left', async () => {
  await withServedPage(chrome.browser, [file], async (page) => {
    await openWhatIf(page);
    for (const who of ['worker-05', 'worker-07']) {
      assert.equal(await page.locator(`li[data-departed="${who}"]`).count(), 1, `${who} under Departed`);
    }
    const graceful = await page.locator('li[data-departed="worker-05"]').textContent();
    assert.ok(rule.released > 1 && rule.withheld > 1, `the fixture: worker-05 holds splits and owns some it does not hold (${JSON.stringify(rule)})`);
    assert.match(graceful, new RegExp(`removed by the what-if: stopped gracefully, releasing the ${rule.released} splits it held; ${rule.withheld} splits? withheld`));
    const crash = await page.locator('li[data-departed="worker-07"]').textContent();
    assert.match(crash, /removed by the what-if: crashed; \d+ splits? withheld/);
    assert.doesNotMatch(crash, /releas/);
    // the store's own departure is still listed as before
    assert.match(await page.locator('li[data-departed="worker-gone-7f3a"]').textContent(), /departed recently \(its assign record lingers\)/);

    // unchecking the crashed member plans as if its delay were over: a release_departed change
    const box = page.locator('li[data-departed="worker-07"] input[type=checkbox]');
    assert.equal(await box.isChecked(), true);
    const n = await ready(page);
    await box.uncheck();
    await ready(page, n);
    assert.match(await page.locator('ol.changes').textContent(), /release the splits withheld for worker-07/);
    assert.match(await page.locator('li[data-departed="worker-07"]').textContent(), /released: its splits move now/);
  }, { url });
});

test('the findings say a graceful stop released what it held and a crash withholds its splits', async () => {
  await withServedPage(chrome.browser, [file], async (page) => {
    const graceful = await findingOf(page, 'worker-05');
    assert.doesNotMatch(graceful, /departed recently/);
    assert.match(graceful, /"worker-05" stopped gracefully \(what-if\): it released the \d+ split\(s\) it held/);
    assert.match(graceful, new RegExp(`released the ${rule.released} split\\(s\\) it held`));
    // what still names it (splits it no longer held) is withheld, and said so
    assert.match(graceful, new RegExp(`; ${rule.withheld} split\\(s\\) still in its name that it no longer held are withheld`));
    const crash = await findingOf(page, 'worker-07');
    assert.match(crash, /"worker-07" crashed \(what-if\): \d+ split\(s\) withheld until its delay ends/);
    assert.doesNotMatch(crash, /released/);
  }, { url });
});
