// The on-call card (issue 30) against a real nats-server and the real `serve --server`, in
// Chromium: a worker of a running job crashes (its presence purged, as NATS reports a lapsed
// presence on a bucket with limit markers); the card, first on the page, names it with the
// store's time (date and zone), counts the rebalance window down from that time (timing.md §5.3:
// T + 20 s at the earliest, T + 50 s at the latest on 0.1), lists the receivers that
// `spate-planner plan --release-departed` gives of the same state, shows the simulator's
// predicted recovery, and then, once the leader's publish and the receivers' claims are written,
// the verdict. At 390, 768 and 1400 px, light and dark: the card and the chart's first row in the
// first screen, nothing wider than the screen, axe-core clean.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startServer, launch, watchedPage, ready, cli, axeViolations, outputDir } from './browser.mjs';
import { followedJob } from './live-fixture.mjs';

const JOB = 'oncall';
const PATIENCE = 120000;
let chrome;
let job;
let nats;
let writer;
let server;

before(async () => {
  job = await followedJob(JOB, { splits: 60, members: 4 });
  ({ nats, writer, server } = job);
  chrome = await launch();
  await mkdir(outputDir, { recursive: true });
});
after(async () => {
  await chrome?.close();
  await job?.stop();
});

/** The card's parts as the page shows them. */
function card(page) {
  return page.evaluate(() => {
    const root = document.querySelector('spate-planner').shadowRoot;
    const c = root.querySelector('.incidents:not([hidden]) .incident');
    if (!c) return null;
    const texts = (sel) => [...c.querySelectorAll(`${sel} li`)].map((li) => li.textContent);
    return {
      kind: c.dataset.kind,
      phase: c.dataset.phase,
      title: c.querySelector('.incident-what').textContent,
      ago: c.querySelector('.incident-ago').textContent,
      leader: c.querySelector('.incident-leader').textContent,
      receivers: texts('.incident-receivers'),
      recovery: texts('.incident-recovery'),
      risk: texts('.incident-risk'),
      verdict: texts('.incident-verdict'),
    };
  });
}

async function until(page, fn, what) {
  const end = Date.now() + PATIENCE;
  for (;;) {
    const c = await card(page);
    if (c && fn(c)) return c;
    if (Date.now() > end) throw new Error(`${what}: not within ${PATIENCE} ms; the card: ${JSON.stringify(c)}`);
    await page.waitForTimeout(100);
  }
}

/** `hh:mm:ss UTC` of `at` (a `YYYY-MM-DD hh:mm:ss UTC` text) plus `secs`. */
function plus(at, secs) {
  const d = new Date(`${at.replace(' UTC', 'Z').replace(' ', 'T')}`);
  return `${new Date(d.getTime() + secs * 1000).toISOString().slice(11, 19)} UTC`;
}

/** The live member whose records name it owner of the most runnable splits, and those splits (of an export now). */
async function heaviest() {
  const file = join(nats.dir, 'oncall-before.json');
  const ex = await cli(['snapshot', '--server', nats.url, '--job', JOB, '-o', file]);
  assert.equal(ex.status, 0, ex.stderr);
  const snap = JSON.parse(await readFile(file, 'utf8'));
  const value = (e) => (typeof e.value === 'string' ? JSON.parse(e.value) : e.value);
  const members = snap.lease.entries.filter((e) => e.key.startsWith('worker.')).map((e) => e.key.slice('worker.'.length));
  const owned = {};
  for (const e of snap.state.entries.filter((x) => x.key.startsWith('split.'))) {
    const v = value(e);
    if (v.status === 'runnable' && members.includes(v.owner)) (owned[v.owner] ||= []).push(v.id);
  }
  return Object.entries(owned).sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1))[0];
}

/** The crashed member of the first test, and its presence value (each layout test crashes it again). */
let crashed = null;

/** Receivers by `plan --release-departed member` of an export now: { member: count }. */
async function receiversByCli(member, splits) {
  const file = join(nats.dir, 'oncall-export.json');
  const ex = await cli(['snapshot', '--server', nats.url, '--job', JOB, '-o', file]);
  assert.equal(ex.status, 0, ex.stderr);
  const plan = await cli(['plan', file, '--release-departed', member, '--json']);
  assert.equal(plan.status, 0, plan.stderr);
  const { assignment } = JSON.parse(plan.stdout);
  const out = {};
  for (const [m, ids] of Object.entries(assignment)) {
    const n = ids.filter((id) => splits.includes(id)).length;
    if (n) out[m] = n;
  }
  return out;
}

test('a worker crashes: the card names it with the store\'s time, counts the window down, lists the CLI\'s receivers, predicts recovery, then gives the verdict', async () => {
  const { page, problems } = await watchedPage(chrome.browser, { width: 1400, height: 1000 });
  await page.goto(`${server.url}?job=${JOB}`);
  await ready(page, 0, PATIENCE);
  const [member, splits] = await heaviest();
  crashed = { member, presence: (await writer.values('lease', `worker.${member}`))[`worker.${member}`] };
  const t0 = Date.now();
  await writer.purge('lease', `worker.${member}`);
  const c = await until(page, (x) => x.kind === 'crashed', 'the crash\'s card');
  console.log(`the card named the crash ${Date.now() - t0} ms after the purge (polled every 100 ms)`);
  assert.equal(c.title, `${member} crashed`);
  const at = c.ago.match(/(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC)/)[1];
  assert.match(c.ago, / \((now|\d+ s ago)\)$/);
  assert.equal(c.phase, 'withheld');
  assert.ok(c.leader.includes(`until ${plus(at, 20)} at the earliest`), c.leader);
  assert.ok(c.leader.includes(`and ${plus(at, 50)} at the latest`), c.leader);
  assert.ok(c.leader.includes(`withholds its ${splits.length} runnable split`), `${splits.length} splits of ${member}: ${c.leader}`);
  // the countdown moves with the clock (the card is asked for again every second)
  const left = (x) => Number(x.leader.match(/at the earliest \(in (\d+) s\)/)?.[1]);
  const later = await until(page, (x) => left(x) <= left(c) - 2, 'the countdown to move');
  assert.ok(left(later) < left(c), `${c.leader} then ${later.leader}`);
  // the receivers are the CLI's plan with the window ended
  const want = await receiversByCli(member, splits);
  const shown = Object.fromEntries(c.receivers.map((t) => t.match(/^(\S+) takes (\d+) split/)).map((m) => [m[1], Number(m[2])]));
  assert.deepEqual(shown, want);
  await until(page, (x) => x.recovery.length > 0, 'the predicted recovery');
  const pred = await card(page);
  assert.match(pred.recovery[0], /^Whole again by \d\d:\d\d:\d\d UTC to \d\d:\d\d:\d\d UTC \(median \d\d:\d\d:\d\d UTC; \d of 8 simulated seeds; /);
  // the card while the window is open, for the user guide: a laptop's width, then a phone's
  await page.screenshot({ path: join(outputDir, 'oncall-withheld-1400.png') });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: join(outputDir, 'oncall-withheld-390.png') });
  // on a phone the card and the chart's first row are in the first screen, clear of the what-if
  // drawer at its foot (the job's details and notices fold behind a button while a job is live)
  const phone = await page.evaluate(() => {
    const root = document.querySelector('spate-planner').shadowRoot;
    const row = root.querySelector('.chart button[data-member]').getBoundingClientRect();
    const drawer = root.querySelector('.side').getBoundingClientRect();
    return { row: row.bottom, drawer: drawer.top, wide: document.scrollingElement.scrollWidth };
  });
  console.log(`390 px while the window is open: the chart's first row ends at ${Math.round(phone.row)} px, the drawer starts at ${Math.round(phone.drawer)} px`);
  assert.ok(phone.row <= Math.min(844, phone.drawer), JSON.stringify(phone));
  assert.equal(phone.wide, 390);
  await page.setViewportSize({ width: 1400, height: 1000 });

  // the leader's publish as predicted, and each receiver's claims
  const byMember = {};
  const plan = JSON.parse((await cli(['plan', join(nats.dir, 'oncall-export.json'), '--release-departed', member, '--json'])).stdout).assignment;
  for (const [m, ids] of Object.entries(plan)) byMember[m] = ids;
  await writer.delete('state', `assign.${member}`);
  for (const [m, ids] of Object.entries(byMember)) {
    await writer.put('state', `assign.${m}`, JSON.stringify({ generation: 4, schema: 3, splits: ids }));
  }
  const total = splits.length;
  const released = await until(page, (x) => x.verdict.includes(`Published as predicted: ${total} of ${total}.`), 'the publish to be seen as predicted');
  assert.equal(released.phase, 'released');
  for (const id of splits) {
    const to = Object.entries(byMember).find(([, ids]) => ids.includes(id))[0];
    await writer.put('lease', `split.${id}`, JSON.stringify({ schema: 3, owner: to, nonce: `n-${to}`, epoch: 9 }));
  }
  const settled = await until(page, (x) => x.phase === 'settled', 'every split to run again');
  assert.ok(settled.verdict.includes(`Claimed by the predicted member: ${total} of ${total}; by another: 0; not yet: 0.`), JSON.stringify(settled.verdict));
  assert.ok(settled.verdict.some((v) => /^Running again \(or done\) by \d\d:\d\d:\d\d UTC/.test(v)), JSON.stringify(settled.verdict));
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(problems, []);
  await page.close();
});

for (const [width, height] of [[390, 844], [768, 1024], [1400, 900]]) {
  for (const theme of ['light', 'dark']) {
    test(`the card first at ${width} px, ${theme}: above everything else, nothing wider than the screen`, async () => {
      const { page, problems } = await watchedPage(chrome.browser, { width, height, theme, touch: width < 500 });
      await page.goto(`${server.url}?job=${JOB}`);
      await ready(page, 0, PATIENCE);
      // the member of the first test comes back, then crashes again: the newest card is a crash's
      await writer.put('lease', `worker.${crashed.member}`, crashed.presence);
      await until(page, (x) => x.kind === 'joined', 'its return');
      await writer.purge('lease', `worker.${crashed.member}`);
      await until(page, (x) => x.kind === 'crashed' && x.recovery.length > 0, 'its crash, with the predicted recovery');
      const where = await page.evaluate(() => {
        const root = document.querySelector('spate-planner').shadowRoot;
        const box = (sel) => root.querySelector(sel)?.getBoundingClientRect();
        const cardBox = box('.incidents');
        const row = box('.chart .row, .chart [data-member]');
        const header = box('header, .header');
        return { card: cardBox && { top: cardBox.top, bottom: cardBox.bottom }, row: row && { top: row.top, bottom: row.bottom },
          header: header && { top: header.top }, scroll: document.scrollingElement.scrollWidth };
      });
      await page.screenshot({ path: join(outputDir, `oncall-${width}-${theme}.png`) });
      console.log(`${width} px, ${theme}: the card ${Math.round(where.card.top)}..${Math.round(where.card.bottom)} px, the chart's first row ${Math.round(where.row.top)}..${Math.round(where.row.bottom)} px`);
      assert.ok(where.card.top < 20, `the card is first: ${JSON.stringify(where)}`);
      assert.ok(where.row, `the chart is drawn: ${JSON.stringify(where)}`);
      // on a phone the chart's first row is in the first screen too (the job's details fold
      // while it is live); wider screens show the job's details and the figures before it
      if (width < 600) assert.ok(where.row.bottom <= height, `the chart's first row within the first ${height} px: ${JSON.stringify(where)}`);
      assert.ok(where.scroll <= width, `the page is ${where.scroll} px wide at ${width} px`);
      assert.deepEqual(await axeViolations(page), []);
      assert.deepEqual(problems, []);
      await page.close();
    });
  }
}

test('a Timeline comparison on a phone fits the screen (its A and B fields shrink to their columns)', async () => {
  const plain = await startServer([]);
  const { page, problems } = await watchedPage(chrome.browser, { width: 390, height: 844, touch: true });
  try {
    const script = encodeURIComponent(JSON.stringify({ format: 'spate-planner-script/1', events: [{ at_ms: 0, op: 'crash', member: 'worker-03' }] }));
    const b = encodeURIComponent(JSON.stringify({ config: { rebalance_delay_ms: 0 } }));
    await page.goto(`${plain.url}#timeline=${script}&compare=${b}`);
    await ready(page, 0, PATIENCE);
    await page.waitForSelector('spate-planner >> .tl-config td.tl-b select', { timeout: PATIENCE });
    // the page was 545 px wide: the B column's select was as wide as its longest option
    assert.equal(await page.evaluate(() => document.scrollingElement.scrollWidth), 390);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
    plain.stop();
  }
});
