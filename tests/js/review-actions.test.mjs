// The review's actions (web/review/page/actions.js) against a fake worker client: a sweep follows
// the plan shown, a superseded sweep's answer is dropped, a comparison follows the snapshot shown
// and is not made while "before" is the snapshot shown, and failures become the page's message
// (through the controller's own run() and report()).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Store, initialState } from '../../web/common/page/store.js';
import { Controller } from '../../web/shell/page/controller.js';
import { ReviewActions, sweepIsCurrent, comparisonIsCurrent } from '../../web/review/page/actions.js';

/** A client whose answers the test releases one by one. */
function fakeClient() {
  const calls = [];
  return {
    calls,
    lastLoad: { source: { kind: 'demo' }, generation: 1 },
    lastBefore: null,
    call(op, args, onProgress) {
      return new Promise((resolve, reject) => calls.push({ op, args, onProgress, resolve, reject }));
    },
  };
}

function setup() {
  const store = new Store({ ...initialState(), generation: 1, info: { job: 'j', members: [], splits: 0 }, source: { label: 'a.json' }, result: { text: 'T1', view: {} } });
  const client = fakeClient();
  // the controller's actions without its worker: run() and report() are the real ones
  const controller = Object.assign(Object.create(Controller.prototype), { store, client, ask: (op, args) => client.call(op, args) });
  return { store, client, review: new ReviewActions(controller, (patch) => store.update(patch)) };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
const step = (value) => ({ value });

test('a sweep shows once answered; a newer one wins over an older one still under way', async () => {
  const { store, client, review } = setup();
  const a = review.sweep({ axis: 'add_members', from: 0, to: 1, cap: 0 });
  const b = review.sweep({ axis: 'default_cap', from: 2, to: 3, cap: 0 });
  assert.deepEqual(client.calls.map((c) => [c.op, c.args.token, c.args.text, c.args.generation]), [['sweep', 1, 'T1', 1], ['sweep', 2, 'T1', 1]]);
  client.calls[1].onProgress({ got: 1, total: 2 });
  assert.deepEqual(store.state.sweepRun, { params: { axis: 'default_cap', from: 2, to: 3, cap: 0 }, done: 1, total: 2 });
  client.calls[0].onProgress({ got: 1, total: 2 }); // the older one's progress is not shown
  assert.equal(store.state.sweepRun.params.axis, 'default_cap');
  client.calls[1].resolve([step(2), step(3)]);
  await b;
  client.calls[0].resolve([step(0), step(1)]); // answered late: dropped
  await a;
  assert.equal(store.state.sweep.params.axis, 'default_cap');
  assert.deepEqual(store.state.sweep.steps, [step(2), step(3)]);
  assert.equal(store.state.sweepRun, null);
  assert.equal(sweepIsCurrent(store.state), true);
  review.close();
});

test('a new plan replans the sweep shown, and one under way with its own range', async () => {
  const { store, client, review } = setup();
  const first = review.sweep({ axis: 'add_members', from: 0, to: 2, cap: 0 });
  client.calls[0].resolve([step(0), step(1), step(2)]);
  await first;
  store.update({ result: { text: 'T2', view: {} } });
  assert.equal(sweepIsCurrent(store.state), false);
  await settle();
  assert.deepEqual(client.calls.slice(1).map((c) => [c.args.text, c.args.to]), [['T2', 2]]);
  // the person asks for another range; the plan changes while it runs: that range is replanned
  review.sweep({ axis: 'add_members', from: 0, to: 5, cap: 0 });
  store.update({ result: { text: 'T3', view: {} } });
  await settle();
  assert.deepEqual(client.calls.slice(3).map((c) => [c.args.text, c.args.to]), [['T3', 5]]);
  // a plan of the same text (after a restart) with nothing under way plans nothing again
  client.calls[3].resolve([]);
  await settle();
  const n = client.calls.length;
  store.update({ result: { text: 'T3', view: {} } });
  await settle();
  assert.equal(client.calls.length, n);
  review.close();
});

test('kept as "before", the snapshot is compared with the next one loaded, not with itself', async () => {
  const { store, client, review } = setup();
  const kept = review.keepBefore();
  assert.deepEqual(client.calls[0].args, { generation: 1, before: 1 });
  client.calls[0].resolve({ job: 'j', members: [], splits: 0 });
  await kept;
  assert.deepEqual(client.lastBefore, { source: { kind: 'demo' }, before: 1 });
  await review.compare();
  assert.equal(client.calls.length, 1, 'no comparison of a snapshot with itself');
  store.update({ generation: 2, info: { job: 'j', members: [], splits: 0 }, source: { label: 'b.json' } });
  await settle();
  assert.deepEqual([client.calls[1].op, client.calls[1].args], ['compare', { generation: 2, before: 1, text: 'T1' }]);
  const diff = { owner_changes: [], decision: { published: true, matches: true, differences: {} } };
  client.calls[1].resolve(diff);
  await settle();
  assert.equal(comparisonIsCurrent(store.state), true);
  assert.match(store.state.status, /^Compared with a\.json: 0 splits changed owner; the later published assignment is what the planner decided\.$/);
  // another snapshot: the comparison shown is not of it any more, and a new one is asked for
  store.update({ generation: 3 });
  assert.equal(comparisonIsCurrent(store.state), false);
  await settle();
  assert.equal(client.calls[2].args.generation, 3);
  review.close();
});

test('the comparison follows the rules picked: a plan by other rules asks for it again, naming the scenario', async () => {
  const { store, client, review } = setup();
  store.update({ before: { id: 4, label: 'a.json', generation: null, info: { job: 'j', members: [], splits: 0 } } });
  const pending = review.compare();
  assert.deepEqual(client.calls[0].args, { generation: 1, before: 4, text: 'T1' });
  client.calls[0].resolve({ owner_changes: [], decision: { published: false, matches: false, differences: {} } });
  await pending;
  assert.equal(store.state.comparison.rules, null);
  assert.equal(comparisonIsCurrent(store.state), true);
  // the what-if panel picks 0.3: the plan comes back with the scenario; the comparison shown is of the old rules
  store.update({ scenario: { ...store.state.scenario, rules: '0.3' }, result: { text: '{"rules":"0.3"}', view: {} } });
  assert.equal(comparisonIsCurrent(store.state), false);
  await settle();
  const again = client.calls[client.calls.length - 1];
  assert.deepEqual([again.op, again.args], ['compare', { generation: 1, before: 4, text: '{"rules":"0.3"}' }]);
  again.resolve({ owner_changes: [], decision: { published: false, matches: false, differences: {} } });
  await settle();
  assert.equal(store.state.comparison.rules, '0.3');
  assert.equal(comparisonIsCurrent(store.state), true);
  // another scenario change that keeps the rules asks for nothing
  const n = client.calls.length;
  store.update({ result: { text: '{"rules":"0.3","default_cap":2}', view: {} } });
  await settle();
  assert.equal(client.calls.filter((c) => c.op === 'compare').length, client.calls.slice(0, n).filter((c) => c.op === 'compare').length);
  review.close();
});

test('failures become the page\'s message; superseded and stale answers do not', async () => {
  const { store, client, review } = setup();
  const loading = review.loadBeforeFile({ name: 'old.json' });
  assert.equal(store.state.beforeLoading.label, 'old.json');
  client.calls[0].reject(Object.assign(new Error('not JSON'), { code: 'not_json' }));
  await loading;
  assert.equal(store.state.beforeLoading, null);
  assert.deepEqual(store.state.message, { level: 'error', title: 'The earlier snapshot could not be loaded; the comparison shown is unchanged', text: 'old.json: not JSON', code: 'not_json', where: '' });
  store.update({ message: null });
  const s = review.run(review.sweep({ axis: 'add_members', from: 0, to: 1, cap: 0 }), 'The sweep could not be run');
  client.calls[1].reject(Object.assign(new Error('a newer sweep was asked for'), { code: 'superseded' }));
  await s;
  assert.equal(store.state.message, null);
  assert.equal(store.state.sweepRun, null);
  review.close();
});
