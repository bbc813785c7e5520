// A recording with moments that cannot be planned (issue 32): begun while the store held a plan
// record of schema 4 (so its very first moment is refused), mended 1.2 s later, refused again
// and mended again. `spate-planner replay FILE` opens the page on the first moment that can be
// planned, says which moments it skipped and why (the code, the bucket and key), never steps
// onto them, and every other moment shows the plan `replay --at … --json` prints for it. The
// recording is written by hand from `spate-planner demo` (header, state, change lines:
// docs/recording-format.md). No console error, no CSP violation, no axe-core violation.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCommand, launch, watchedPage, ready, cli, axeViolations, message } from './browser.mjs';

const T0 = 1767225600000;
let chrome;
let dir;
let file;
/** The moments' times, in line order (moment k is after line k + 2). */
const times = [];

/** A snapshot file on one line: its lines joined (no string of a snapshot holds a newline). */
const oneLine = (text) => text.split('\n').map((l) => l.trim()).join('');

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spate-refused-'));
  const snap = join(dir, 'demo.json');
  const made = await cli(['demo', '--splits', '12', '--members', '3', '-o', snap]);
  assert.equal(made.status, 0, made.stderr);
  const text = await readFile(snap, 'utf8');
  const plan = text.match(/\{"key":"plan","revision":\d+,"created_ms":\d+,"value":(\{[^\n]*\})\},?\n/)[1];
  assert.match(plan, /"schema":3/);
  const bad = plan.replace('"schema":3', '"schema":4');
  const top = Math.max(...[...text.matchAll(/"revision":(\d+)/g)].map((m) => Number(m[1])));
  const state = oneLine(text.replace(plan, bad));
  const put = (t, bucket, key, revision, value) => {
    times.push(t);
    return JSON.stringify({ t, change: { bucket, op: 'put', entry: { key, revision, created_ms: t, value: 0 } } }).replace('"value":0', `"value":${value}`);
  };
  const presence = (x) => `{"schema":3,"nonce":"n-${x}","max_in_flight":2}`;
  times.push(T0);
  const lines = [
    JSON.stringify({ format: 'spate-planner-recording/1', job: 'demo', segment: 1, started_ms: T0, source: { kind: 'nats', server: 'nats://127.0.0.1:4222', note: 'hand-written' } }),
    `{"t":${T0},"reason":"start","state":${state}}`, // moment 0: refused (the plan of schema 4)
    put(T0 + 600, 'lease', 'worker.w-new', top + 1, presence('w-new')), // 1: still refused
    put(T0 + 1200, 'state', 'plan', top + 2, plan), // 2: mended
    put(T0 + 1300, 'lease', 'worker.w-late', top + 3, presence('w-late')), // 3
    put(T0 + 1400, 'state', 'plan', top + 4, bad), // 4: refused again
    put(T0 + 2600, 'state', 'plan', top + 5, plan), // 5: mended
    put(T0 + 2700, 'lease', 'worker.w-last', top + 6, presence('w-last')), // 6
  ];
  file = join(dir, 'demo.000001.jsonl');
  await writeFile(file, `${lines.join('\n')}\n`);
  chrome = await launch();
});
after(async () => {
  await chrome?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const normal = (text) => text.trim().replace(/^(\{"format":"[^"]*","job":"[^"]*","taken_at_ms":)"\d+"/, '$1"T"');

/** Waits until the page shows moment `m` with nothing being planned. */
function shown(page, m) {
  return page.waitForFunction((want) => {
    const el = document.querySelector('spate-planner');
    return el.controller.state.live?.moment === want && !el.controller.live.inflight;
  }, m, { timeout: 20000 });
}

test('a recording whose first moments cannot be planned opens on the first that can, names the moments it skips, and never steps onto them', async () => {
  // the command line: those moments are refused by name, the others are planned
  const refused = await cli(['replay', file, '--at', String(T0 + 600), '--json']);
  assert.notEqual(refused.status, 0);
  assert.match(refused.stderr, /wrong_schema/);
  const server = await startCommand('replay', [file]);
  try {
    const { page, problems } = await watchedPage(chrome.browser);
    await page.goto(server.url);
    await ready(page, 0, 20000);
    await shown(page, 2);
    assert.match(await page.locator('.live-bar').textContent(), /Replay: job demo/);
    const at = (m) => new Date(times[m]).toISOString().replace('T', ' ').replace('Z', ' UTC');
    const said = await message(page);
    assert.ok(said.includes(`moments 1–2 (${at(0)} to ${at(1)}) could not be planned: wrong_schema at spate_coordination_demo_state/plan; skipped`), said);
    assert.ok(said.includes(`moment 5 (${at(4)}) could not be planned: wrong_schema at spate_coordination_demo_state/plan; skipped`), said);
    assert.match(said, /schema 4/, 'the reader\'s own words are kept');
    const steps = await page.evaluate(() => document.querySelector('spate-planner').controller.state.live.replay.steps);
    assert.deepEqual(steps.filter((m) => [0, 1, 4].includes(m)), [], `no step onto a skipped moment: ${steps}`);
    assert.equal(steps[0], 2);
    // each moment the page can show is the plan the command line prints for it
    for (const m of [2, 3, 5, 6]) {
      await page.evaluate((k) => document.querySelector('spate-planner').controller.live.seek(k), m);
      await shown(page, m);
      const cl = await cli(['replay', file, '--at', String(times[m]), '--json']);
      assert.equal(cl.status, 0, cl.stderr);
      const plan = await page.evaluate(() => document.querySelector('spate-planner').controller.ask('planJson'));
      assert.equal(normal(plan), normal(cl.stdout), `moment ${m}`);
    }
    // the slider moves by steps: from the last moment, one step back skips moment 4
    const slider = page.locator('.replay-scrub input[type=range]');
    await slider.focus();
    await page.keyboard.press('End');
    await shown(page, 6);
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction(() => {
      const el = document.querySelector('spate-planner');
      return el.controller.state.live.moment !== 6 && !el.controller.live.inflight;
    }, null, { timeout: 20000 });
    const back = await page.evaluate(() => document.querySelector('spate-planner').controller.state.live.moment);
    assert.notEqual(back, 4, 'never onto the skipped moment');
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(problems, []);
    await page.close();
  } finally {
    server.stop();
  }
});

test('a recording none of whose moments can be planned is refused, saying why', async () => {
  const only = join(dir, 'refused.000001.jsonl');
  const lines = (await readFile(file, 'utf8')).split('\n');
  await writeFile(only, `${lines.slice(0, 3).join('\n')}\n`);
  const server = await startCommand('replay', [only]);
  try {
    const { page } = await watchedPage(chrome.browser);
    await page.goto(server.url);
    // (the element may not be defined yet: its modules load after the worker starts)
    await page.waitForFunction(() => /could not be loaded/.test(document.querySelector('spate-planner')?.shadowRoot?.querySelector('.message')?.textContent || ''), null, { timeout: 20000 });
    const said = await message(page);
    assert.match(said, /no moment of the recording can be planned/);
    assert.match(said, /wrong_schema/);
    await page.close();
  } finally {
    server.stop();
  }
});
