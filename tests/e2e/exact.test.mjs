// The page shows exactly what the core decided, and never loses an action or an error (issue
// 19), in Debian's headless Chromium against the real binary: on several fleets every number of
// the summary strip is the core's summary document (the plan document's `summary`, fetched from
// the worker), the chart's orange bars are exactly the members the core marks over the mean it
// draws, the heaviest members are in the first screen and their tiles lead to their rows;
// Apply pressed just after a plan appears is applied; a snapshot that cannot be loaded says so,
// naming it, and no other fleet is shown in its place; a link with an unknown op shows the
// baseline and the refused change; errors show where the person is looking.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, launch, watchedPage, ready, cli, axeViolations, message, inView, applyForm } from './browser.mjs';
import { humanBytes, thousands, plural } from '../../web/common/shared/format.js';

let chrome;
let dir;
before(async () => { chrome = await launch(); dir = await mkdtemp(join(tmpdir(), 'spate-exact-')); });
after(async () => { await chrome?.close(); });

async function snapshot(name, args) {
  const file = join(dir, name);
  const r = await cli(['demo', ...args, '-o', file]);
  assert.equal(r.status, 0, r.stderr);
  return file;
}

/** The 20,000 × 200 fleet of `spate-planner demo`, made once. */
let big = null;
function bigSnapshot() {
  big ??= snapshot('big.json', ['--splits', '20000', '--members', '200', '--job', 'big']);
  return big;
}

async function withPage(serverArgs, fn, view = {}) {
  const server = await startServer(serverArgs);
  const { page, problems } = await watchedPage(chrome.browser, view);
  try {
    await fn(page, server);
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
    server.stop();
  }
}

/** The tiles as the page shows them: { key: { value, sub } }. */
function tiles(page) {
  return page.locator('.tile').evaluateAll((ts) => Object.fromEntries(ts.map((t) => [t.dataset.tile, {
    value: t.querySelector('.value').textContent, sub: t.querySelector('.sub')?.textContent ?? '',
  }])));
}

/** The core's documents of the plan shown: the plan document (Plan JSON) and its baseline's. */
function documents(page) {
  return page.evaluate(async () => {
    const c = document.querySelector('spate-planner').controller;
    const doc = JSON.parse(await c.ask('planJson'));
    const base = doc.scenario.changes.length ? JSON.parse(await c.ask('planJson', { text: JSON.stringify({ ...doc.scenario, changes: [] }) })) : null;
    return { doc, base };
  });
}

/** What each tile must say, from the core's documents alone. */
function expectedTiles(doc, base) {
  const s = doc.summary;
  const heavy = (h) => ({ value: `${humanBytes(h.load_now)} → ${humanBytes(h.load_planned)}`, sub: `${h.name}: ${h.now_over_mean}× → ${h.planned_over_mean}× the mean` });
  const p = doc.published;
  return {
    worst: heavy(s.heaviest_now),
    'worst-planned': heavy(s.heaviest_planned),
    'over-mean': { value: `${thousands(s.now.over_mean)} → ${thousands(s.planned.over_mean)}`, sub: `of ${thousands(s.members)} members, by more than ${s.over_mean_percent}%` },
    'at-cap': { value: `${thousands(s.now.at_cap)} → ${thousands(s.planned.at_cap)}`, sub: 'members with every lane used' },
    moves: { value: thousands(s.moves), sub: `${humanBytes(s.weight_moved)} moved${base ? `; baseline ${thousands(base.summary.moves)}` : ''}` },
    balance: { value: `${s.now.max_over_mean} → ${s.planned.max_over_mean}`, sub: base ? `baseline plan ${base.summary.planned.max_over_mean}` : 'the heaviest member\'s load over the mean' },
    'at-risk': { value: thousands(doc.at_risk.count), sub: `of max_attempts ${thousands(doc.at_risk.max_attempts)}${doc.at_risk.race_parked_count ? `; ${thousands(doc.at_risk.race_parked_count)} parked by the claim race` : ''}` },
    published: !doc.leader_publishes ? { value: 'nothing', sub: 'the current assignments stand' }
      : !p ? { value: 'none yet', sub: 'no assign.* records' }
        : { value: plural(p.changes, 'split'), sub: `${thousands(p.records)} records${p.stale.length ? `, ${p.stale.length} stale` : ''}` },
  };
}

/** Every number the core's documents hold, as the page writes numbers. */
function documentNumbers(doc, base) {
  const out = new Set();
  const add = (text) => { for (const n of String(text).match(/\d[\d,]*(?:\.\d+)?/g) ?? []) out.add(n); };
  for (const d of [doc, base].filter(Boolean)) {
    const s = d.summary;
    for (const side of [s.now, s.planned]) {
      [side.total, side.max_load].forEach((v) => add(humanBytes(v)));
      [side.over_mean, side.at_cap].forEach((v) => add(thousands(v)));
      add(side.max_over_mean);
    }
    for (const h of [s.heaviest_now, s.heaviest_planned]) {
      [h.load_now, h.load_planned].forEach((v) => add(humanBytes(v)));
      add(h.now_over_mean);
      add(h.planned_over_mean);
    }
    add(thousands(s.members));
    add(s.over_mean_percent);
    add(thousands(s.moves));
    add(humanBytes(s.weight_moved));
    [d.at_risk.count, d.at_risk.max_attempts, d.at_risk.race_parked_count].forEach((v) => add(thousands(v)));
    if (d.published) [d.published.changes, d.published.records, d.published.stale.length].forEach((v) => add(thousands(v)));
  }
  return out;
}

/** The strip equals the core's summary; every number in it is one of the core's; the orange bars are its marks. */
async function stripIsTheCores(page) {
  const { doc, base } = await documents(page);
  const shown = await tiles(page);
  assert.deepEqual(shown, expectedTiles(doc, base));
  const s = doc.summary;
  const names = [s.heaviest_now.name, s.heaviest_planned.name];
  const allowed = documentNumbers(doc, base);
  for (const [key, t] of Object.entries(shown)) {
    let text = `${t.value} ${t.sub}`;
    for (const n of names) text = text.replaceAll(n, '');
    for (const n of text.match(/\d[\d,]*(?:\.\d+)?/g) ?? []) assert.ok(allowed.has(n), `tile ${key} shows ${n}, which the core's document does not hold`);
  }
  // the chart, unfolded: a bar is orange exactly for the members the core marks over its mean
  const all = page.locator('.fold button', { hasText: /^Show all/ });
  if (await all.count()) await all.click();
  const orange = (kind) => page.locator(`.chart .bar.${kind}.over`).evaluateAll((bars) => bars.map((b) => b.closest('button').dataset.member));
  const marked = (key) => s.marks.filter((m) => m[key]).map((m) => m.name);
  assert.deepEqual((await orange('now')).sort(), marked('over_now').sort());
  assert.deepEqual((await orange('planned')).sort(), marked('over_planned').sort());
  assert.equal(`${(await orange('now')).length} → ${(await orange('planned')).length}`, shown['over-mean'].value.replace(/,/g, ''));
  // both means drawn where the core puts them, each labelled
  const labels = await page.locator('.chart .mean-label').allTextContents();
  assert.deepEqual(labels, [`mean now ${humanBytes(BigInt(Math.round(s.now.mean_load)))}`, `planned mean ${humanBytes(BigInt(Math.round(s.planned.mean_load)))}`]);
  return doc;
}

test('the demo fleet: every tile is the core summary, the orange bars its marks', async () => {
  await withPage([], async (page, server) => {
    await page.goto(server.url);
    await ready(page);
    await stripIsTheCores(page);
  });
});

test('a held-out fleet with a what-if: the tiles and the baseline are the core\'s', async () => {
  const file = await snapshot('heldout.json', ['--splits', '1800', '--members', '45', '--seed', '7', '--job', 'heldout']);
  const link = encodeURIComponent('{"changes":[{"op":"remove_member","member":"worker-03","departure":"graceful"},{"op":"add_member","member":"w-new","cap":12}]}');
  await withPage([file], async (page, server) => {
    await page.goto(`${server.url}#scenario=${link}`);
    await ready(page);
    const doc = await stripIsTheCores(page);
    assert.equal(doc.scenario.changes.length, 2);
  });
});

test('20,000 × 200: the tiles are the core summary, the heaviest members are in the first screen, their tiles lead to their rows, the search finds a split\'s member', async () => {
  const file = await bigSnapshot();
  await withPage([file], async (page, server) => {
    await page.goto(server.url);
    await ready(page, 0, 60000);
    const { doc } = await documents(page);
    const s = doc.summary;
    // folded at 200 members: the heaviest now and planned are pinned first, in the first screen
    for (const name of [s.heaviest_now.name, s.heaviest_planned.name]) {
      assert.ok(await inView(page, `.chart button[data-member="${name}"]`), `${name} is in the first screen at 1400 × 900`);
    }
    // the tile leads to its row: scrolled into view and focused
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await page.locator('.tile[data-tile="worst-planned"]').click();
    await page.waitForFunction((n) => document.querySelector('spate-planner').shadowRoot.activeElement?.dataset.member === n, s.heaviest_planned.name);
    assert.ok(await inView(page, `.chart button[data-member="${s.heaviest_planned.name}"]`));
    // the search by split id shows the member the core plans the split on, folded or not
    // (a split the plan assigns to another member than holds it now, as the core lists it)
    const line = await page.evaluate(async () => (await document.querySelector('spate-planner').controller.ask('findSplits', { query: 'part-01', limit: 2000 }))
      .find((l) => l.planned && l.owner && l.planned !== l.owner));
    assert.ok(line, 'the plan moves a split of part-01…');
    await page.locator('input[aria-label="member name or split id"]').fill(line.id);
    await page.locator('form.member-search button[type=submit]').click();
    await page.waitForFunction((n) => document.querySelector('spate-planner').shadowRoot.activeElement?.dataset.member === n, line.planned);
    assert.equal(await page.locator('.search-result').textContent(), `split ${line.id}: planned on ${line.planned}, held now by ${line.lease_owner ?? line.owner}.`);
    assert.ok(await inView(page, `.chart button[data-member="${line.planned}"]`));
    await stripIsTheCores(page);
  }, { width: 1400, height: 900 });
});

for (const delay of [0, 100, 400]) {
  test(`Apply pressed ${delay} ms after a plan appears on 20,000 × 200 is applied`, async () => {
    const file = await bigSnapshot();
    await withPage([file], async (page, server) => {
      // the name is typed and Apply pressed by the page itself, `delay` ms after the plan-change event
      await page.addInitScript((ms) => {
        document.addEventListener('plan-change', () => {
          if (window.pressed) return;
          window.pressed = true;
          const form = document.querySelector('spate-planner').shadowRoot.querySelector('form[data-form="add"]');
          form.querySelector('[aria-label="new member name"]').value = 'w-late';
          setTimeout(() => form.querySelector('button[type=submit]').click(), ms);
        });
      }, delay);
      await page.goto(server.url);
      await page.waitForFunction(() => document.querySelector('spate-planner')?.controller?.state.scenario.changes.length === 1, null, { timeout: 60000 });
      await page.waitForFunction(() => document.querySelector('spate-planner').controller.state.result.view.report.members.some((m) => m.name === 'w-late'));
      assert.match(await page.locator('ol.changes').textContent(), /add member w-late/);
      assert.match(await page.locator('form[data-form="add"] .form-done').textContent(), /^Applied: add member w-late/);
      assert.equal(await page.locator('form[data-form="add"] button[type=submit]').textContent(), 'Apply');
    });
  });
}

/**
 * Holds the worker's answers to `analyse` while `window.holdAnalyse` is true (the page sees them
 * once `window.releaseAnalyses()` is called, in order): a plan can then be kept from appearing,
 * so that what the page does before it appears is tested every time, not when the machine is slow.
 */
function holdPlans(page) {
  return page.addInitScript(() => {
    const Real = window.Worker;
    window.holdAnalyse = false;
    const held = [];
    window.heldAnalyses = () => held.length;
    window.releaseAnalyses = () => { window.holdAnalyse = false; for (const deliver of held.splice(0)) deliver(); };
    window.Worker = class extends Real {
      constructor(...args) {
        super(...args);
        this.ops = new Map();
      }

      postMessage(m, ...rest) {
        if (m?.id) this.ops.set(m.id, m.op);
        return super.postMessage(m, ...rest);
      }

      set onmessage(fn) {
        super.onmessage = (ev) => {
          const d = ev.data;
          if (window.holdAnalyse && d && !d.progress && !d.live && this.ops.get(d.id) === 'analyse') held.push(() => fn.call(this, ev));
          else fn.call(this, ev);
        };
      }

      get onmessage() { return super.onmessage; }
    };
  });
}

for (const delay of [0, 200, 500, 1000]) {
  test(`Apply pressed ${delay} ms after the snapshot is parsing, before its plan appears, waits for it (the button says so) and is applied`, async () => {
    const file = await bigSnapshot();
    await withPage([file], async (page, server) => {
      await holdPlans(page);
      // the page presses Apply itself, `delay` ms after the load says it is parsing; the first
      // plan is held until then, so the press always comes before the page has a plan
      await page.addInitScript((ms) => {
        window.holdAnalyse = true;
        const wait = setInterval(() => {
          const root = document.querySelector('spate-planner')?.shadowRoot;
          if (!/^parsing /.test(root?.querySelector('.progress span')?.textContent ?? '')) return;
          clearInterval(wait);
          const form = root.querySelector('form[data-form="add"]');
          form.querySelector('[aria-label="new member name"]').value = 'w-early';
          setTimeout(() => {
            window.seenPlans = Number(document.querySelector('spate-planner').dataset.plans || 0);
            form.querySelector('button[type=submit]').click();
            window.saidWaiting = form.querySelector('button[type=submit]').textContent;
            window.releaseAnalyses();
          }, ms);
        }, 5);
      }, delay);
      await page.goto(server.url);
      await page.waitForFunction(() => document.querySelector('spate-planner')?.controller?.state.scenario.changes.length === 1, null, { timeout: 60000 });
      const r = await page.evaluate(() => {
        const s = document.querySelector('spate-planner').controller.state;
        return { job: s.info.job, has: s.result.view.report.members.some((m) => m.name === 'w-early'), seenPlans: window.seenPlans, said: window.saidWaiting };
      });
      assert.equal(r.job, 'big');
      assert.equal(r.has, true, 'the change is in the plan shown');
      // pressed before the plan appeared, it said what it waited for
      assert.equal(r.seenPlans, 0);
      assert.equal(r.said, 'Apply: waiting for the snapshot being loaded…');
      assert.match(await page.locator('ol.changes').textContent(), /add member w-early/);
      await page.waitForFunction(() => document.querySelector('spate-planner').shadowRoot.querySelector('form[data-form="add"] button[type=submit]').textContent === 'Apply');
    });
  });
}

test('a second Apply while the change before it is still planning waits for it (the button says so); both are applied, in order', async () => {
  await withPage([], async (page, server) => {
    await holdPlans(page);
    await page.goto(server.url);
    await ready(page);
    const before = await page.evaluate(() => document.querySelector('spate-planner').controller.state.result.view.report.members.find((m) => m.name === 'worker-02').cap);
    await page.evaluate(() => { window.holdAnalyse = true; });
    await applyForm(page, 'add', { 'new member name': 'w-first' });
    // the first change's plan is held: it is still planning
    await page.waitForFunction(() => window.heldAnalyses() === 1);
    assert.equal(await page.locator('form[data-form="add"] button[type=submit]').textContent(), 'Apply: planning…');
    const cap = before === 5 ? '6' : '5';
    await applyForm(page, 'cap', { 'member whose cap to change': 'worker-02', 'new cap': cap });
    assert.equal(await page.locator('form[data-form="cap"] button[type=submit]').textContent(), 'Apply: waiting for the change before it…');
    await page.evaluate(() => window.releaseAnalyses());
    await page.waitForFunction(() => document.querySelector('spate-planner').controller.state.scenario.changes.length === 2);
    await page.waitForFunction(() => document.querySelector('spate-planner').shadowRoot.querySelector('form[data-form="cap"] button[type=submit]').textContent === 'Apply');
    const s = await page.evaluate(() => {
      const st = document.querySelector('spate-planner').controller.state;
      return { changes: st.scenario.changes, members: st.result.view.report.members.map((m) => [m.name, m.cap]) };
    });
    assert.deepEqual(s.changes, [{ op: 'add_member', member: 'w-first' }, { op: 'set_cap', member: 'worker-02', cap: Number(cap) }]);
    assert.ok(s.members.some(([n]) => n === 'w-first'), 'the first change is planned');
    assert.deepEqual(s.members.find(([n]) => n === 'worker-02'), ['worker-02', Number(cap)], 'and the second, on top of it');
    assert.match(await page.locator('ol.changes').textContent(), /add member w-first.*cap of worker-02: \d/s);
  });
});

test('a ?snapshot= that cannot be loaded says so, naming it, and shows no fleet: 404, cross-origin, not JSON, too large', async () => {
  await withPage([], async (page, server) => {
    await page.route('**/not-json.json', (r) => r.fulfill({ status: 200, contentType: 'application/json', body: 'this is not JSON' }));
    await page.route('**/huge.json', (r) => r.fulfill({ status: 200, contentType: 'application/json', headers: { 'content-length': String(600 * 1024 * 1024) }, body: '{}' }));
    const cases = [
      ['missing.json', /missing\.json could not be loaded; nothing is shown.*HTTP 404/s],
      ['https://example.com/other.json', /The snapshot https:\/\/example\.com\/other\.json could not be loaded; nothing is shown.*only loaded from this page's origin.*code: cross_origin/s],
      ['not-json.json', /not-json\.json could not be loaded; nothing is shown.*code: not_json/s],
      ['huge.json', /huge\.json could not be loaded; nothing is shown.*600 MiB.*code: too_large/s],
    ];
    for (const [name, re] of cases) {
      await page.goto(`${server.url}?snapshot=${encodeURIComponent(name)}`);
      await page.waitForSelector('.message');
      assert.match(await message(page), re);
      assert.ok(await inView(page, '.message'), 'the error is in view');
      // no fleet in its place, even a second later
      await page.waitForTimeout(1000);
      assert.equal(await page.locator('.chart button[data-member]').count(), 0, `${name}: no fleet is shown`);
      assert.equal(await page.locator('.tile').count(), 0);
      assert.match(await page.locator('.source').textContent(), /no snapshot loaded/);
      assert.match(await message(page), re, 'the error stays');
    }
  });
});

test('a link with an unknown op shows the baseline and the refused change, never a blank page', async () => {
  await withPage([], async (page, server) => {
    const link = encodeURIComponent('{"changes":[{"op":"explode"},{"op":"add_member","member":"w-new"}]}');
    await page.goto(`${server.url}#scenario=${link}`);
    await ready(page);
    assert.equal(await page.locator('.chart button[data-member="w-new"]').count(), 1);
    assert.match(await page.locator('ol.changes li[data-change="0"]').textContent(), /not applied: "explode" is not a change this planner knows.*\(unknown_op\)/);
    assert.match(await message(page), /A change of the link no longer applies; the rest are shown.*change 1/s);
    // the baseline is there: the Moves tile names it
    assert.match(await page.locator('.tile[data-tile="moves"] .sub').textContent(), /; baseline \d/);
    const { doc } = await documents(page);
    assert.deepEqual(doc.refused.map((r) => [r.index, r.code]), [[0, 'unknown_op']]);
  });
});

test('a link whose scenario the core refuses as a whole (a prefix past its bound) shows the fleet and names the scenario, not the fleet', async () => {
  await withPage([], async (page, server) => {
    const prefix = 'p'.repeat(65); // MAX_PREFIX_BYTES is 64
    const link = encodeURIComponent(JSON.stringify({ changes: [{ op: 'add_splits', count: 3, weight: 1, prefix }] }));
    await page.goto(`${server.url}#scenario=${link}`);
    await ready(page);
    const text = await message(page);
    assert.match(text, /The link's scenario could not be read; planning without it/);
    assert.match(text, /too_large/);
    assert.doesNotMatch(text, /could not be loaded/, 'the fleet loaded; only the scenario is refused');
    assert.ok(await page.locator('.chart button[data-member]').count() > 0, 'the demo fleet is shown, planned without the scenario');
    assert.equal(await page.locator('ol.changes li[data-change]').count(), 0, 'no change is planned');
  });
});

/**
 * A scenario that partly applies: an op the planner does not know, a member that is not there, a
 * known op with a field it cannot read, and changes that apply. One policy, the core's: the
 * command line and the page leave out the same changes for the same reasons and plan the rest.
 */
const PARTLY = {
  format: 'spate-planner-scenario/1',
  changes: [
    { op: 'add_member', member: 'w-new', cap: 12 },
    { op: 'explode', how: { big: true } },
    { op: 'set_cap', member: 'ghost', cap: 3 },
    { op: 'set_cap', member: 'worker-02', cap: 'lots' },
    { op: 'remove_member', member: 'worker-03', departure: 'graceful' },
  ],
};

test('a partly applying scenario: the page\'s refused changes and plan are plan --what-if --json\'s; a known op with a bad field is refused on both, not the whole scenario', async () => {
  const file = await snapshot('partly.json', ['--splits', '600', '--members', '8', '--job', 'partly']);
  const whatIf = join(dir, 'partly-what-if.json');
  await writeFile(whatIf, JSON.stringify(PARTLY));
  const r = await cli(['plan', file, '--what-if', whatIf, '--json']);
  assert.equal(r.status, 0, `without --strict the command plans what applies: ${r.stderr}`);
  const fromCli = JSON.parse(r.stdout);
  const refused = [[1, 'unknown_op'], [2, 'unknown_member'], [3, 'invalid_change']];
  assert.deepEqual(fromCli.refused.map((x) => [x.index, x.code]), refused);
  for (const [i, code] of refused) assert.match(r.stderr, new RegExp(`warning: change ${i + 1} not applied, left out of the plan: .*\\[${code}\\]`));
  const strict = await cli(['plan', file, '--what-if', whatIf, '--json', '--strict']);
  assert.equal(strict.status, 1);
  assert.match(strict.stderr, /3 change\(s\) of the scenario do not apply \(--strict\)/);
  await withPage([file], async (page, server) => {
    await page.goto(`${server.url}#scenario=${encodeURIComponent(JSON.stringify(PARTLY))}`);
    await ready(page);
    // the page's list of changes marks exactly the command line's refusals, in its words
    const failing = await page.locator('ol.changes li.failing').evaluateAll((lis) => lis.map((li) => [Number(li.dataset.change), li.querySelector('.reason').textContent]));
    assert.deepEqual(failing, fromCli.refused.map((x) => [x.index, `not applied: ${x.message} (${x.code})`]));
    assert.match(await message(page), /3 changes of the link no longer apply; the rest are shown/);
    // the rest are planned: the new member is in the chart, the one that left is not
    assert.equal(await page.locator('.chart button[data-member="w-new"]').count(), 1);
    assert.equal(await page.locator('.chart button[data-member="worker-03"]').count(), 0);
    // and the page's plan document is the command line's, byte for byte
    const text = await page.evaluate(() => document.querySelector('spate-planner').controller.ask('planJson'));
    assert.equal(text, r.stdout.trimEnd());
  });
});

test('an error shows where the person is looking: a file dropped while scrolled down reports in the sticky strip', async () => {
  await withPage([], async (page, server) => {
    await page.goto(server.url);
    await ready(page);
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await page.evaluate(() => {
      const dt = new DataTransfer();
      dt.items.add(new File(['{"not":"a snapshot"}'], 'dropped.json', { type: 'application/json' }));
      const target = document.querySelector('spate-planner').shadowRoot.querySelector('.planner');
      target.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    });
    await page.waitForSelector('.message');
    assert.match(await message(page), /dropped\.json could not be loaded; the fleet shown is unchanged/);
    assert.ok(await inView(page, '.message'), 'the error is in the viewport, scrolled as the page is');
    assert.ok(await page.evaluate(() => window.scrollY > 400), 'the page was not scrolled back');
  });
});
