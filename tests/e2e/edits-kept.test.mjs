// What the person types is theirs until they apply it, whatever lands meanwhile (a plan, a run,
// a live frame): in Debian's headless Chromium, served by the real binary. Each case makes the
// landing happen after the edit on purpose (the controller's change held back, the store
// updated), so the order never depends on the machine's speed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, withServedPage, ready, applyForm, openWhatIf } from './browser.mjs';
import { demo } from './review-fixtures.mjs';

let chrome;
let fleet;
before(async () => {
  chrome = await launch();
  const work = await mkdtemp(join(tmpdir(), 'spate-edits-kept-'));
  fleet = await demo(work, 'job.json', ['--splits', '300', '--members', '6', '--job', 'edits']);
});
after(async () => { await chrome?.close(); });

const withPage = (fn) => withServedPage(chrome.browser, [fleet], fn);
const plans = async (page) => Number(await page.getAttribute('spate-planner', 'data-plans'));

/** Holds the controller's next addChange until `window.__release()` is called. */
function holdNextChange(page) {
  return page.evaluate(() => {
    const c = document.querySelector('spate-planner').controller;
    const real = c.addChange.bind(c);
    c.addChange = async (...args) => {
      c.addChange = real;
      await new Promise((go) => { window.__release = go; });
      return real(...args);
    };
  });
}

test('a what-if form: what is typed while its change is planned stays; the fields applied are cleared', async () => {
  await withPage(async (page) => {
    const n = await plans(page);
    await holdNextChange(page);
    await applyForm(page, 'add', { 'new member name': 'added-a', 'new member cap': '4' });
    // while it waits: the next name typed, the cap left as applied
    await page.locator('input[aria-label="new member name"]').fill('added-b');
    await page.evaluate(() => window.__release());
    await ready(page, n);
    assert.match(await page.locator('form[data-form="add"] .form-done').textContent(), /added-a/);
    assert.equal(await page.locator('input[aria-label="new member name"]').inputValue(), 'added-b');
    assert.equal(await page.locator('input[aria-label="new member cap"]').inputValue(), '');
  });
});

test('a member picked in a form that leaves the fleet stays picked, said to be gone, and applying names it; picking another drops it', async () => {
  await withPage(async (page) => {
    let n = await plans(page);
    await page.locator('select[aria-label="member whose cap to change"]').selectOption('worker-03');
    // worker-03 leaves by another way (the Remove form)
    await applyForm(page, 'remove', { 'member to remove': 'worker-03' });
    await ready(page, n);
    n = await plans(page);
    const cap = page.locator('select[aria-label="member whose cap to change"]');
    assert.equal(await cap.inputValue(), 'worker-03');
    assert.equal(await cap.locator('option:checked').textContent(), 'worker-03 (no longer in the fleet)');
    await page.locator('input[aria-label="new cap"]').fill('2');
    await page.locator('form[data-form="cap"] button[type=submit]').click();
    await page.locator('form[data-form="cap"] .form-error').filter({ hasText: /worker-03/ }).waitFor();
    assert.match(await page.locator('form[data-form="cap"] .form-error').textContent(), /^Not added: .*worker-03/);
    // another member picked: the gone one is no longer offered
    await cap.selectOption('worker-01');
    assert.deepEqual(await cap.locator('option[data-gone]').count(), 0);
    assert.equal(await page.locator('select[aria-label="member to remove"] option[value="worker-03"]').count(), 0);
  });
});

test("the Timeline's script box keeps an edit not applied when a run or another change lands; Apply runs the edit", async () => {
  await withPage(async (page) => {
    await page.locator('.tab[data-tab="timeline"]').click();
    await page.waitForFunction(() => document.querySelector('spate-planner').shadowRoot.querySelector('.timeline')?.dataset.run);
    await page.locator('.tl-json summary').click();
    const a = page.locator('textarea[aria-label="script of configuration A (JSON)"]');
    const edit = '{"until_ms":120000,"events":[{"at_ms":5000,"op":"crash","member":"worker-02"}]}';
    await a.fill(edit);
    await a.blur();
    assert.equal(await page.locator('.tl-json-pending').textContent(), 'Edited: Apply the script to run it.');
    // a change lands in the store meanwhile (B compared, from the configuration)
    await page.evaluate(() => {
      const c = document.querySelector('spate-planner').controller;
      c.setTimeline({ script: c.state.timeline.script, b: { rebalance_delay_ms: 0 } });
    });
    await page.waitForFunction(() => document.querySelector('spate-planner').controller.state.timelineRun?.status === 'done');
    assert.equal(await a.inputValue(), edit);
    // B's box, not edited, follows the store
    assert.match(await page.locator('textarea[aria-label^="configuration B"]').inputValue(), /rebalance_delay_ms/);
    await page.locator('button', { hasText: 'Apply the script' }).click();
    assert.equal(await page.locator('.tl-json-pending').textContent(), '');
    assert.deepEqual(await page.evaluate(() => document.querySelector('spate-planner').controller.state.timeline.script.events), [{ at_ms: 5000, op: 'crash', member: 'worker-02' }]);
    // applied, the box follows the store again
    const runs = () => Number(document.querySelector('spate-planner').shadowRoot.querySelector('.timeline')?.dataset.run || 0);
    const drawn = await page.evaluate(runs);
    await page.evaluate(() => {
      const c = document.querySelector('spate-planner').controller;
      c.setTimeline({ script: { ...c.state.timeline.script, seed: '9' }, b: c.state.timeline.b });
    });
    assert.match(await a.inputValue(), /"seed": ?"?9"?[,}]/);
    // that run drawn and the results no longer dimmed as busy before axe-core reads the page
    await page.waitForFunction((before) => {
      const tl = document.querySelector('spate-planner').shadowRoot.querySelector('.timeline');
      return Number(tl.dataset.run || 0) > before && !tl.dataset.busy;
    }, drawn, { timeout: 60000 });
  });
});

test("a sweep range typed while today's value is asked for stays", async () => {
  await withPage(async (page) => {
    await page.locator('.tab[data-tab="sweep"]').click();
    await page.waitForFunction(() => { const s = document.querySelector('spate-planner').controller.state; return s.sweep && !s.sweepRun; }, null, { timeout: 120000 });
    // the worker's answer for today's value held back until the range is typed
    await page.evaluate(() => {
      const c = document.querySelector('spate-planner').controller;
      const real = c.ask.bind(c);
      c.ask = async (op, args) => {
        if (op === 'sweepToday') await new Promise((go) => { window.__release = go; });
        return real(op, args);
      };
    });
    await page.locator('select[aria-label="what the sweep varies"]').selectOption('default_cap');
    await page.locator('input[aria-label="sweep from"]').fill('3');
    await page.locator('input[aria-label="sweep to"]').fill('9');
    await page.waitForFunction(() => typeof window.__release === 'function');
    await page.evaluate(() => window.__release());
    await page.evaluate(() => new Promise((r) => setTimeout(r, 200)));
    assert.equal(await page.locator('input[aria-label="sweep from"]').inputValue(), '3');
    assert.equal(await page.locator('input[aria-label="sweep to"]').inputValue(), '9');
  });
});

test('keyboard focus stays on the ✕ that had it when a plan or another update draws its part again', async () => {
  await withPage(async (page) => {
    await openWhatIf(page);
    for (const name of ['w-a', 'w-b']) {
      const n = await plans(page);
      await applyForm(page, 'add', { 'new member name': name });
      await ready(page, n);
    }
    const active = () => page.evaluate(() => {
      const a = document.querySelector('spate-planner').shadowRoot.activeElement;
      return a ? { same: a === window.__focused, in: a.closest('[data-change], .focus-chip, .message')?.className ?? null, label: a.getAttribute('aria-label') } : null;
    });
    const focus = (locator) => locator.evaluate((b) => { b.focus(); window.__focused = b; });
    // the what-if changes list, drawn again for a new plan (a default cap set elsewhere): the
    // same ✕ element keeps focus
    await focus(page.locator('li[data-change="0"] button'));
    const n = await plans(page);
    await page.evaluate(() => document.querySelector('spate-planner').controller.setSettings({ defaultCap: 7 }));
    await ready(page, n);
    const kept = await active();
    assert.equal(kept?.same, true, JSON.stringify(kept));
    assert.match(kept.label, /^Remove change 1: add member w-a/);
    // a summary tile's ? button and the chart's row, through a new plan (each live frame's, say)
    for (const target of ['.tile-cell:has([data-tile="moves"]) .tile-info', 'button.member[data-member="worker-02"]']) {
      await focus(page.locator(target));
      const m = await plans(page);
      await page.evaluate(() => document.querySelector('spate-planner').controller.setSettings({ defaultCap: 9 }));
      await ready(page, m);
      assert.equal((await active())?.same, true, target);
      await page.evaluate(() => document.querySelector('spate-planner').controller.setSettings({ defaultCap: 7 }));
      await ready(page, m + 1);
      assert.equal((await active())?.same, true, target);
    }
    // the snapshot's warnings opened, through a new fleet's details (a live frame's): still open
    await page.locator('details.warnings > summary').click();
    await page.locator('details.warning-group > summary').first().click();
    await page.evaluate(() => { const c = document.querySelector('spate-planner').controller; c.store.update({ info: { ...c.state.info } }); });
    assert.deepEqual(await page.locator('details.warnings, details.warning-group').evaluateAll((ds) => ds.slice(0, 2).map((d) => d.open)), [true, true]);
    // the "showing only" chip, through updates that do not change whom it shows
    await page.evaluate(() => document.querySelector('spate-planner').controller.focus('w-a'));
    await page.locator('.tab[data-tab="moves"]').click();
    await page.locator('.moves .focus-chip button').focus();
    await page.evaluate(() => document.querySelector('spate-planner').controller.store.update({ status: 'something else happened' }));
    assert.equal((await active())?.in, 'focus-chip');
    // a message said again in the same words (each live frame's, say): not drawn again
    const say = () => page.evaluate(() => document.querySelector('spate-planner').controller.store.update({ message: { level: 'warning', title: 'Held', text: 'the same words', code: 'x', where: '' } }));
    await say();
    await page.locator('.message button').focus();
    const box = await page.locator('.message').elementHandle();
    await say();
    assert.equal((await active())?.in, 'message warning');
    assert.equal(await box.evaluate((b) => b.isConnected), true, 'the alert was drawn again');
  });
});

test('removing a what-if change or a Timeline event by keyboard leaves focus on the next ✕, or the one before for the last', async () => {
  await withPage(async (page) => {
    await openWhatIf(page);
    for (const name of ['k-a', 'k-b', 'k-c']) {
      const n = await plans(page);
      await applyForm(page, 'add', { 'new member name': name });
      await ready(page, n);
    }
    const label = () => page.evaluate(() => document.querySelector('spate-planner').shadowRoot.activeElement?.getAttribute('aria-label') ?? null);
    let n = await plans(page);
    await page.locator('li[data-change="0"] button').focus();
    await page.keyboard.press('Enter');
    await ready(page, n);
    assert.match(await label(), /^Remove change 1: add member k-b/);
    n = await plans(page);
    await page.locator('li[data-change="1"] button').focus();
    await page.keyboard.press('Enter');
    await ready(page, n);
    assert.match(await label(), /^Remove change 1: add member k-b/);
    assert.equal(await page.locator('li[data-change]').count(), 1);
    // the Timeline's events: drawn again when another event is added, the ✕ keeps focus
    // (set as the script's edits are, not by addTimelineEvents, which moves focus to the run's figures once drawn)
    const addEvents = (events) => page.evaluate((more) => {
      const c = document.querySelector('spate-planner').controller;
      const t = c.state.timeline;
      c.setTimeline({ ...t, script: { ...t.script, events: [...t.script.events, ...more] } });
    }, events);
    await page.locator('.tab[data-tab="timeline"]').click();
    await addEvents([{ at_ms: 1000, op: 'crash', member: 'worker-02' }, { at_ms: 2000, op: 'crash', member: 'worker-03' }]);
    const second = page.locator('.tl-event-list li[data-event="1"] button');
    await second.waitFor();
    await second.evaluate((b) => { b.focus(); window.__focused = b; });
    await addEvents([{ at_ms: 3000, op: 'crash', member: 'worker-04' }]);
    await page.locator('.tl-event-list li[data-event="2"]').waitFor();
    assert.equal(await page.evaluate(() => document.querySelector('spate-planner').shadowRoot.activeElement === window.__focused), true);
    await page.keyboard.press('Enter');
    assert.match(await label(), /^Remove the event: .*worker-04/);
    await page.keyboard.press('Enter');
    assert.match(await label(), /^Remove the event: .*worker-02/);
  });
});

test('status words are shown at once and said to screen readers at most every 2 s, the newest then', async () => {
  await withPage(async (page) => {
    const said = await page.evaluate(async () => {
      const el = document.querySelector('spate-planner');
      const region = el.shadowRoot.querySelector('.summary .announce');
      // the words shown have been said (the page's own statuses on loading), long enough ago
      const line = el.shadowRoot.querySelector('.summary .status');
      while (region.textContent !== line.textContent) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 2100));
      const heard = [];
      new MutationObserver(() => heard.push(region.textContent)).observe(region, { childList: true, characterData: true, subtree: true });
      // twenty statuses at once, as a busy live job's frames come
      for (let i = 1; i <= 20; i++) el.controller.store.update({ status: `frame ${i}` });
      await new Promise((r) => setTimeout(r, 50));
      const soon = [...heard];
      await new Promise((r) => setTimeout(r, 2500));
      return { soon, later: [...heard], shown: el.shadowRoot.querySelector('.summary .status').textContent, role: region.getAttribute('role') };
    });
    assert.deepEqual(said.soon, ['frame 1'], 'the first is said at once');
    assert.deepEqual(said.later, ['frame 1', 'frame 20'], 'then only the newest, 2 s later');
    assert.equal(said.shown, 'frame 20', 'the line shown is the newest at once');
    assert.equal(said.role, 'status');
  });
});

test('Enter on a what-if form\'s Apply (each form) keeps keyboard focus on that Apply while its change is planned and after', async () => {
  await withPage(async (page) => {
    await openWhatIf(page);
    const focused = () => page.evaluate(() => {
      const a = document.querySelector('spate-planner').shadowRoot.activeElement;
      return a ? `${a.tagName} ${a.closest('form')?.dataset.form ?? ''}` : document.activeElement?.tagName;
    });
    for (const [key, fields] of [['add', { 'new member name': 'by-keyboard' }], ['cap', { 'member whose cap to change': 'worker-02', 'new cap': '3' }], ['remove', { 'member to remove': 'worker-03' }],
      ['reserve', { 'splits to reserve or release': 'part-000004' }], ['weight', { 'split whose weight to change': 'part-000005', 'new weight': '6GiB' }], ['splits', { 'how many splits to add': '5' }]]) {
      const n = await plans(page);
      const form = page.locator(`form[data-form="${key}"]`);
      for (const [label, value] of Object.entries(fields)) {
        const control = form.locator(`[aria-label="${label}"]`);
        if (await control.evaluate((e) => e.tagName === 'SELECT')) await control.selectOption(value);
        else await control.fill(value);
      }
      await holdNextChange(page);
      await form.locator('button[type=submit]').focus();
      await page.keyboard.press('Enter');
      // while the change is planned, and once it is shown
      assert.equal(await focused(), `BUTTON ${key}`, `${key}: focus while planning`);
      await page.evaluate(() => window.__release());
      await ready(page, n);
      assert.equal(await focused(), `BUTTON ${key}`, `${key}: focus after`);
      assert.notEqual(await form.locator('.form-done').textContent(), '', `${key}: applied`);
    }
  });
});

test('Enter in a what-if form\'s field applies it and leaves keyboard focus in that field, never on the page\'s body', async () => {
  await withPage(async (page) => {
    await openWhatIf(page);
    const n = await plans(page);
    const name = page.locator('input[aria-label="new member name"]');
    await name.fill('by-enter');
    await name.focus();
    await page.keyboard.press('Enter');
    await ready(page, n);
    await page.locator('form[data-form="add"] .form-done').filter({ hasText: /by-enter/ }).waitFor();
    assert.equal(await page.evaluate(() => document.querySelector('spate-planner').shadowRoot.activeElement?.getAttribute('aria-label') ?? document.activeElement?.tagName), 'new member name');
  });
});
