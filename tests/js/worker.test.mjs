// The planner's worker (web/worker.js, on the production module web/pkg) run in Node, its
// postMessage a fake that clones each answer as the browser does, with the transfer list given:
// the Timeline's model crosses with its typed arrays transferred (the worker's copies detached),
// not copied, and arrives whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { scriptText } from '../../web/timeline/shared/script.js';
import { transferables } from '../../web/timeline/shared/model.js';
import { emptyScenario } from '../../web/common/shared/scenario.js';

const posted = [];
globalThis.self = {
  postMessage(message, transfer = []) {
    posted.push({ message, transfer, received: structuredClone(message, { transfer }) });
  },
};
// the module's init fetches its .wasm next to worker.js; Node's fetch reads no file: URL
const realFetch = globalThis.fetch;
globalThis.fetch = async (url) => {
  if (!String(url).startsWith('file:')) return realFetch(url);
  return new Response(await readFile(fileURLToPath(url)), { headers: { 'content-type': 'application/wasm' } });
};
await import('../../web/worker.js');

/** Sends one request to the worker; resolves to what it posted as the answer. */
async function ask(id, op, args) {
  await self.onmessage({ data: { id, op, generation: 1, ...args } });
  const answer = posted.filter((p) => p.message.id === id && !p.message.progress).at(-1);
  assert.ok(answer, `an answer to ${op}`);
  assert.equal(answer.message.ok, true, JSON.stringify(answer.message.error));
  return answer;
}

test("the Timeline's model crosses to the page with its typed arrays transferred, not copied", async () => {
  await ask(1, 'load', { source: { kind: 'demo', splits: 300, members: 6, seed: 4 } });
  const script = scriptText({ seed: '7', until_ms: 120000, events: [{ at_ms: 0, op: 'crash', member: 'worker-02' }] });
  const { message, transfer, received } = await ask(2, 'simulate', { script, which: 'A' });
  const sent = message.value;
  const model = received.value;
  // every typed array's buffer is in the transfer list, each once
  const arrays = [model.load, model.lanes, model.idleLoad, model.idleCount];
  assert.equal(transfer.length, new Set(transfer).size);
  assert.equal(transfer.length, transferables(model).length);
  assert.ok(transfer.length >= 2, `${transfer.length} buffers`);
  // moved: the worker's arrays are detached, the page's hold the values
  for (const [i, a] of [sent.load, sent.lanes, sent.idleLoad, sent.idleCount].entries()) {
    assert.equal(a.buffer.byteLength, 0, `array ${i} of the worker's model is detached`);
  }
  assert.ok(arrays.every((a) => a.buffer.byteLength > 0));
  assert.equal(model.load.length, model.members.length * model.buckets);
  assert.ok(model.figures.idle_split_ms > 0 && model.marks[0].kind === 'crash');
  // an answer with no typed arrays goes as before, nothing transferred
  const plain = await ask(3, 'analyse', { scenario: emptyScenario() });
  assert.deepEqual(plain.transfer, []);
  assert.equal(plain.received.value.failures.length, 0);
});

/** The worker's answer to a request that fails: its error. */
async function refused(id, op, args) {
  await self.onmessage({ data: { id, op, generation: 1, ...args } });
  const answer = posted.filter((p) => p.message.id === id && !p.message.progress).at(-1);
  assert.equal(answer.message.ok, false, `${op} is refused`);
  return answer.message.error;
}

test('the scrubber asks the worker for the fleet at an instant of the kept runs (A and B); a replaced run is refused as stale', async () => {
  const crash = { seed: '7', until_ms: 120000, events: [{ at_ms: 0, op: 'crash', member: 'worker-02' }] };
  const a = (await ask(20, 'simulate', { script: scriptText(crash), which: 'A' })).received.value;
  const b = (await ask(21, 'simulate', { script: scriptText({ ...crash, config: { rebalance_delay_ms: 0 } }), which: 'B' })).received.value;
  assert.ok(a.runId > 0 && b.runId > a.runId);
  // both kept: each answers for its own configuration (B claims sooner: no rebalance delay)
  const atA = (await ask(22, 'fleetAt', { runId: a.runId, t: 15000 })).received.value;
  const atB = (await ask(23, 'fleetAt', { runId: b.runId, t: 15000 })).received.value;
  assert.equal(atA.t_ms, '15000');
  assert.ok(Number(atA.counts.idle) > Number(atB.counts.idle), `A ${atA.counts.idle} idle, B ${atB.counts.idle}`);
  assert.equal(atA.members.find((m) => m.name === 'worker-02').state, 'crashed');
  // at most idleLimit listed, all counted
  const one = (await ask(24, 'fleetAt', { runId: a.runId, t: 15000, idleLimit: 1 })).received.value;
  assert.deepEqual([one.idle.length, one.counts.idle], [1, atA.counts.idle]);
  // a new run of A replaces both: the old ids are stale, the new one answers
  const a2 = (await ask(25, 'simulate', { script: scriptText({ ...crash, seed: '8' }), which: 'A' })).received.value;
  for (const [id, runId] of [[26, a.runId], [27, b.runId]]) assert.equal((await refused(id, 'fleetAt', { runId, t: 0 })).code, 'stale');
  assert.equal((await ask(28, 'fleetAt', { runId: a2.runId, t: 0 })).received.value.t_ms, '0');
});

test("the worker's plan is the core's policy for changes that do not apply: listed, the rest planned, the baseline beside", async () => {
  const scenario = { ...emptyScenario(), changes: [{ op: 'add_member', member: 'a' }, { op: 'explode' }, { op: 'set_cap', member: 'ghost', cap: 1 }, { op: 'add_member', member: 'b' }] };
  const r = (await ask(4, 'analyse', { scenario })).received.value;
  assert.deepEqual(r.failures.map((f) => [f.index, f.code, f.path]), [[1, 'unknown_op', 'changes[1].op'], [2, 'unknown_member', 'changes[2].member']]);
  const names = r.view.report.members.map((m) => m.name);
  assert.ok(names.includes('a') && names.includes('b'));
  assert.equal(r.baseline.report.members.length, 6);
  // every later request names the scenario's whole text; the core applies the same policy
  assert.equal(JSON.parse(r.text).changes.length, 4);
  const doc = JSON.parse((await ask(5, 'planJson', { text: r.text })).received.value);
  assert.deepEqual(doc.refused.map((f) => f.index), [1, 2]);
});

test('a sweep longer than the core allows is refused before any step is planned', async () => {
  await self.onmessage({ data: { id: 6, op: 'sweep', generation: 1, text: '', axis: 'default_cap', from: 0, to: 1024, cap: 0, crash: false, token: 1 } });
  const answer = posted.filter((p) => p.message.id === 6 && !p.message.progress);
  assert.equal(answer.length, 1);
  assert.equal(answer[0].message.ok, false);
  assert.equal(answer[0].message.error.code, 'invalid_sweep');
  assert.match(answer[0].message.error.message, /1025 steps: a sweep takes at most 1024/);
  assert.equal(posted.filter((p) => p.message.id === 6 && p.message.progress).length, 0);
});
