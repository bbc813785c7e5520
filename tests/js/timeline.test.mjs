// Unit tests of the Timeline's pure modules (web/timeline/shared/*.js): the script state, the
// reduction of a simulation document to series, the fleet at an instant, the folding, the
// figures, the report section, the permalink, and the runner's supersession. The last tests run
// the real wasm simulator (the test build) and check the reduction against its own figures.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  parseScript, scriptText, withOverrides, setField, setOverride, readInput, inputText, effective, duration, clock,
  describeEvent, freshNames, rollingRestart, hasTimeline, emptyTimeline, configNames, parseOverrides, orderedEvents, otherRelease,
} from '../../web/timeline/shared/script.js';
import { timelineModel } from '../../web/timeline/shared/model.js';
import { layers, lines, bandPoints, stepPoints, countTicks, timeTicks, stackMax, linesMax, chartViews, defaultMode, eventWindow, legendLayers } from '../../web/timeline/shared/series.js';
import { figureCells } from '../../web/timeline/shared/figures.js';
import { sectionInput } from '../../web/timeline/shared/report.js';
import { toFragment, fromFragment } from '../../web/shell/shared/permalink.js';
import { emptyScenario } from '../../web/common/shared/scenario.js';
import { runKey, runScripts, TimelineRunner } from '../../web/timeline/page/runner.js';
import { eventsOf } from '../../web/timeline/shared/event-form.js';

const BIG_SEED = '18446744073709551615';

test('script text keeps the seed and weights exact and writes them as JSON integers', () => {
  const text = `{"format":"spate-planner-script/1","seed": ${BIG_SEED},"events":[{"at_ms":0,"op":"add_splits","count":2,"weight":9007199254740993,"prefix":"x-"}]}`;
  const s = parseScript(text);
  assert.equal(s.seed, BIG_SEED);
  assert.equal(s.events[0].weight, '9007199254740993');
  const out = scriptText(s);
  assert.equal(out, `{"format":"spate-planner-script/1","seed":${BIG_SEED},"events":[{"at_ms":0,"op":"add_splits","count":2,"weight":9007199254740993,"prefix":"x-"}]}`);
  // a member named like a field stays a string
  const odd = parseScript('{"events":[{"at_ms":0,"op":"crash","member":"\\"seed\\":5"}]}');
  assert.equal(odd.events[0].member, '"seed":5');
  assert.match(scriptText(odd), /"member":"\\"seed\\":5"/);
});

test('parseScript refuses what is not a script, with a code and a path', () => {
  assert.throws(() => parseScript('{nope'), (e) => e.code === 'invalid_script' && e.path === '$');
  assert.throws(() => parseScript('[1]'), (e) => e.code === 'invalid_script');
  assert.throws(() => parseScript('{"format":"other/2"}'), (e) => e.code === 'unsupported_format' && e.path === 'format');
  assert.deepEqual(parseScript('{}'), { events: [] });
  assert.throws(() => parseOverrides('{"events":[{"at_ms":0,"op":"crash_leader"}]}'), (e) => e.code === 'invalid_script');
  assert.deepEqual(parseOverrides('{"rebalance_delay_ms":0}'), { rebalance_delay_ms: 0 });
});

test('settings: set, cleared, overridden in B and placed where the script format keeps them', () => {
  let s = { events: [] };
  s = setField(s, 'rebalance_delay_ms', 5000);
  s = setField(s, 'drain_ms', 2000);
  s = setField(s, 'until_ms', 120000);
  assert.deepEqual(s, { events: [], config: { rebalance_delay_ms: 5000 }, data_plane: { drain_ms: 2000 }, until_ms: 120000 });
  assert.deepEqual(setField(s, 'drain_ms', null), { events: [], config: { rebalance_delay_ms: 5000 }, until_ms: 120000 });
  const b = setOverride(setOverride(null, 'rebalance_delay_ms', 0), 'seed', '3');
  assert.deepEqual(withOverrides(s, b), { events: [], config: { rebalance_delay_ms: 0 }, data_plane: { drain_ms: 2000 }, until_ms: 120000, seed: '3' });
  assert.deepEqual(setOverride(b, 'seed', null), { rebalance_delay_ms: 0 });
  // a field not set takes the simulator's default for the snapshot (Planner.simDefaults; the
  // values themselves are checked against the module in simulate.test.mjs)
  const defaults = { lease_duration_ms: '45000', rebalance_delay_ms: '20000', max_attempts: 4, seed: '0' };
  assert.equal(effective(s, 'lease_duration_ms', defaults), 45000);
  assert.equal(effective(s, 'rebalance_delay_ms', defaults), 5000);
  assert.equal(effective({ events: [] }, 'max_attempts', defaults), 4);
  assert.equal(effective({ events: [] }, 'seed', defaults), '0');
  assert.equal(effective({ events: [] }, 'max_attempts', null), undefined);
  assert.deepEqual(configNames({ script: s, b }), { A: 'A: rebalance delay 5 s, drain time (data plane) 2 s, horizon 2 min', B: 'B: rebalance delay 0 s, seed 3' });
  assert.equal(configNames(emptyTimeline()).A, "A: Spate's defaults");
  assert.equal(hasTimeline(emptyTimeline()), false);
  assert.equal(hasTimeline({ script: { events: [], seed: '1' }, b: null }), true);
});

test('the release: a top-level choice, its default the store\'s; B on the other release names it', () => {
  const defaults = { rules: '0.3', seed: '0' };
  assert.equal(effective({ events: [] }, 'rules', defaults), '0.3');
  assert.equal(otherRelease('0.3'), '0.1');
  assert.equal(otherRelease('0.1'), '0.3');
  const s = setField({ events: [] }, 'rules', readInput('rules', '0.1'));
  assert.deepEqual(s, { events: [], rules: '0.1' });
  assert.equal(scriptText(s), '{"format":"spate-planner-script/1","rules":"0.1","events":[]}');
  assert.deepEqual(withOverrides(s, { rules: '0.3' }), { events: [], rules: '0.3' });
  assert.deepEqual(configNames({ script: s, b: { rules: '0.3' } }), { A: 'A: release Spate 0.1 (and 0.2)', B: 'B: release Spate 0.3' });
  assert.throws(() => readInput('rules', '0.4'), (e) => e.code === 'invalid_script' && e.path === 'rules');
});

test('inputs: seconds to integer ms, the seed exact, empty is the default, the rest goes to the core as is', () => {
  assert.equal(readInput('rebalance_delay_ms', '2.5'), 2500);
  assert.equal(readInput('rebalance_delay_ms', '-1'), -1000);
  assert.equal(readInput('max_attempts', '0'), 0);
  assert.equal(readInput('seed', `00${BIG_SEED}`), BIG_SEED);
  assert.equal(readInput('until_ms', '  '), null);
  assert.throws(() => readInput('drain_deadline_ms', 'soon'), (e) => e.code === 'invalid_script' && e.path === 'drain_deadline_ms');
  assert.equal(inputText('lease_duration_ms', 30000), '30');
  assert.equal(inputText('seed', BIG_SEED), BIG_SEED);
  assert.equal(inputText('drain_ms', { min: 1, max: 2 }), '');
});

test('durations and clock times for people', () => {
  assert.deepEqual([0, 1500, 20000, 61234, 120000, 90000, 3900000].map(duration), ['0 s', '1.5 s', '20 s', '1 min 1 s', '2 min', '1 min 30 s', '1 h 5 min']);
  assert.deepEqual([0, 59999, 65000, 3723000].map(clock), ['0:00', '0:59', '1:05', '1:02:03']);
});

test('events: described, fresh names skip taken ones, a rolling restart stops then starts each member', () => {
  assert.equal(describeEvent({ at_ms: 60000, op: 'stop', member: 'w1' }), 't = 1 min: stop w1 gracefully');
  assert.equal(describeEvent({ at_ms: 0, op: 'crash_leader' }), 't = 0 s: crash the leader');
  assert.deepEqual(freshNames(3, 'new-', ['new-02']), ['new-01', 'new-03', 'new-04']);
  assert.deepEqual(rollingRestart(['a', 'b'], 1000, 30000, 10000), [
    { at_ms: 1000, op: 'stop', member: 'a' }, { at_ms: 11000, op: 'start', member: 'a' },
    { at_ms: 31000, op: 'stop', member: 'b' }, { at_ms: 41000, op: 'start', member: 'b' },
  ]);
  const ordered = orderedEvents({ events: [{ at_ms: 5, op: 'crash_leader' }, { at_ms: 1, op: 'crash', member: 'x' }, { at_ms: 5, op: 'stop', member: 'y' }] });
  assert.deepEqual(ordered.map((o) => o.index), [1, 0, 2]);
});

test('the event form: restarts keep the member\'s own cap, new members get fresh names, counts are checked', () => {
  const ctx = { members: ['w1', 'w2', 'w3'], taken: ['w1', 'w2', 'w3', 'new-01'], capOf: (m) => ({ w1: 16, w2: null }[m] ?? null) };
  const v = { at: '1.5', member: 'w1', count: '2', cap: '', every: '30', downtime: '10' };
  assert.deepEqual(eventsOf('rolling', v, ctx), [
    { at_ms: 1500, op: 'stop', member: 'w1' }, { at_ms: 11500, op: 'start', member: 'w1', cap: 16 },
    { at_ms: 31500, op: 'stop', member: 'w2' }, { at_ms: 41500, op: 'start', member: 'w2' },
  ]);
  assert.deepEqual(eventsOf('restart', { ...v, cap: '4' }, ctx), [{ at_ms: 1500, op: 'start', member: 'w1', cap: 4 }]);
  assert.deepEqual(eventsOf('start_new', v, ctx), [{ at_ms: 1500, op: 'start', member: 'new-02' }, { at_ms: 1500, op: 'start', member: 'new-03' }]);
  assert.deepEqual(eventsOf('crash_leader', v, ctx), [{ at_ms: 1500, op: 'crash_leader' }]);
  assert.deepEqual(eventsOf('set_cap', v, ctx), [{ at_ms: 1500, op: 'set_cap', member: 'w1', cap: 0 }]);
  assert.throws(() => eventsOf('rolling', { ...v, count: '4' }, ctx), /how many: a whole number from 1 to 3/);
  assert.throws(() => eventsOf('crash', { ...v, member: '' }, ctx), /pick a member/);
  // a time the core refuses still goes to it (it names the field)
  assert.deepEqual(eventsOf('crash', { ...v, at: '-2' }, ctx), [{ at_ms: -2000, op: 'crash', member: 'w1' }]);
});

/** A small run's summary: w1 crashes at 10 s; its split s2 is idle until w2 claims it at 40 s; s3 is quarantined at 50 s. */
function smallSummary() {
  return {
    rules: '0.1', rules_source: 'snapshot', rules_note: 'Spate 0.1, as the snapshot says',
    figures: { recovery_ms: 30000, splits_taken: 1, not_recovered: [], others_not_running: 0, idle_before: 0, quarantined_before: 0, idle_split_ms: 80000, idle_weighted: '1550000', attempts_burned: 2, splits_quarantined: 1, moves: 1, forced_drains: 0, replayed_ms: 0, leadership_gap_ms: 0, longest_leadership_gap_ms: 0, elections: 1, publishes: 2, claims: 1, end_ms: 60000 },
    marks: [
      { t_ms: 10000, kind: 'crash', who: ['w1'], text: '0:10 crashed: w1' },
      { t_ms: 20000, kind: 'start', who: ['n1', 'n2'], text: '0:20 started: n1, n2' },
      { t_ms: 35000, kind: 'election', who: ['w2'], text: '0:35 leader elected: w2' },
      { t_ms: 40000, kind: 'recovered', who: [], text: '0:40 recovered: every split the events took runs again' },
    ],
    counts: { claims: 1, quarantines: 1, elections: 1, events: 5 },
    first_event_ms: 10000,
  };
}
/** The series of that run (weights s1 100, s2 40, s3 7), as SimRun.series gives them (the simulator's tests check how). */
function smallSeries() {
  const per = (f) => Float64Array.from({ length: 60 }, (_, k) => f(k));
  const rows = (...r) => Float64Array.from(r.flatMap((x) => [...x]));
  const zero = per(() => 0);
  return {
    members: ['w1', 'w2', 'n1', 'n2'], stepMs: 1000, buckets: 60, endMs: 60000,
    load: rows(per((k) => (k < 10 ? 40 : 0)), per((k) => (k < 40 ? 100 : 140)), zero, zero),
    lanes: rows(per((k) => (k < 10 ? 1 : 0)), per((k) => (k < 40 ? 1 : 2)), zero, zero),
    idleLoad: per((k) => (k < 10 ? 7 : k < 40 ? 47 : k < 50 ? 7 : 0)),
    idleCount: per((k) => (k < 10 ? 1 : k < 40 ? 2 : k < 50 ? 1 : 0)),
    mostIdleMs: 25000,
    charts: { load: { shown: [0, 1, 2, 3], names: ['w1', 'w2', 'n1', 'n2'], rest: null }, lanes: { shown: [0, 1, 2, 3], names: ['w1', 'w2', 'n1', 'n2'], rest: null } },
    idleLabel: 'idle (runnable, read by nobody)',
  };
}
const small = () => timelineModel(smallSummary(), smallSeries());

test('the model: the simulator\'s series and summary as given', () => {
  const series = smallSeries();
  const m = timelineModel(smallSummary(), series);
  assert.deepEqual([m.stepMs, m.buckets, m.endMs, m.mostIdleMs], [1000, 60, 60000, 25000]);
  assert.deepEqual(m.members, ['w1', 'w2', 'n1', 'n2']);
  for (const k of ['load', 'lanes', 'idleLoad', 'idleCount']) assert.equal(m[k], series[k], `${k} is the series' own array (transferred, not copied)`);
  assert.deepEqual(m.figures, smallSummary().figures);
  assert.deepEqual(m.counts, { claims: 1, quarantines: 1, elections: 1, events: 5 });
  assert.deepEqual(m.marks, smallSummary().marks);
  assert.equal(m.firstEventMs, 10000);
  assert.deepEqual(m.rules, { rules: '0.1', source: 'snapshot', note: 'Spate 0.1, as the snapshot says' });
  const none = timelineModel({ ...smallSummary(), marks: [], first_event_ms: null }, series);
  assert.equal(none.firstEventMs, null);
});

// the fleet at an instant and where the scrubber starts are the simulator's (crate/sim/tests/
// sim_at.rs and sim_series.rs check their rules; the kept run through the module is checked
// against its document below)

// which members are drawn one by one and the folded rest's band are the simulator's
// (crate/sim/tests/sim_series.rs); the page only shapes them for drawing
test('the chart as the simulator gives it: the members it draws, the rest it folds (sum, or middle 80% and mean), idle on top', () => {
  const K = 3;
  const n = 12;
  const load = new Float64Array(n * K);
  for (let i = 0; i < n; i++) for (let k = 0; k < K; k++) load[i * K + k] = 10 + (i === 11 ? k * 5 : 0) + (i === 4 ? k : 0);
  const rest = { count: 9, label: '9 other members', bandLabel: '9 other members: middle 80% and mean', sum: new Float64Array([90, 90, 90]), lo: new Float64Array([10, 10, 10]), hi: new Float64Array([10, 10, 10]), mean: new Float64Array([10, 10, 10]) };
  const chart = { shown: [4, 7, 11], names: ['m4', 'm7', 'm11'], rest };
  const model = {
    buckets: K, members: Array.from({ length: n }, (_, i) => `m${i}`), load, lanes: load,
    idleLoad: new Float64Array([0, 3, 0]), idleCount: new Float64Array([0, 1, 0]), idleLabel: 'idle (runnable, read by nobody)',
    charts: { load: chart, lanes: chart },
  };
  const stack = layers(model, 'load');
  assert.deepEqual(stack.map((l) => l.key), ['rest', 'm4', 'm7', 'm11', 'idle']);
  assert.equal(stack[0].values, rest.sum, 'the simulator\'s sum, as given');
  assert.equal(stack[0].label, '9 other members');
  assert.deepEqual(stack.map((l) => l.slot), [undefined, 0, 1, 2, undefined]);
  assert.deepEqual([...stack[3].values], [10, 15, 20]);
  assert.equal(stackMax(stack), 90 + 12 + 10 + 20 + 0);
  const v = lines(model, 'load');
  assert.equal(v.rest.lo, rest.lo);
  assert.equal(v.rest.label, '9 other members: middle 80% and mean');
  assert.equal(v.idle.label, 'idle (runnable, read by nobody)');
  assert.equal(linesMax(v), 20);
  assert.deepEqual(legendLayers(v).map((l) => l.key), ['idle', 'rest', 'm4', 'm7', 'm11']);
  assert.equal(defaultMode(model), 'lines');
  assert.equal(defaultMode(small()), 'stack', 'nothing folded: stacked');
  // each run draws its own chart (B's is asked for with A's names)
  const b = { ...model, charts: { load: { shown: [1], names: ['m4'], rest: null }, lanes: chart } };
  const views = chartViews([model, b], 'load', 'stack');
  assert.deepEqual(views[1].map((l) => l.key), ['m1', 'idle']);
});

test('the stretch where things happen: a little before the first event to a while after the last mark, or none', () => {
  const model = (marks, endMs = 600000) => ({ endMs, marks });
  assert.deepEqual(eventWindow([model([{ t_ms: 0, kind: 'crash' }, { t_ms: 53814, kind: 'recovered' }]), model([{ t_ms: 0, kind: 'crash' }, { t_ms: 28500, kind: 'recovered' }])]), [0, 84000]);
  assert.deepEqual(eventWindow([model([{ t_ms: 300000, kind: 'stop' }, { t_ms: 310000, kind: 'start' }])]), [290000, 340000]);
  assert.equal(eventWindow([model([])]), null);
  assert.equal(eventWindow([model([{ t_ms: 10000, kind: 'crash' }, { t_ms: 500000, kind: 'start' }])]), null, 'most of the run');
});

test('band and step points: flat buckets, vertical steps, equal neighbours merged', () => {
  const x = (k) => k * 10;
  const y = (v) => -v;
  assert.deepEqual(stepPoints([1, 1, 2], x, y), [[0, -1], [20, -1], [20, -2], [30, -2]]);
  assert.deepEqual(bandPoints([0, 0, 0], [1, 1, 2], x, y), [[0, -1], [20, -1], [20, -2], [30, -2], [30, -0], [0, -0]]);
  assert.deepEqual(countTicks(17, 4).ticks.map((t) => t.value), [0, 5, 10, 15, 20]);
  assert.deepEqual(timeTicks(0, 600000, 6).map((t) => t.label), ['0:00', '2:00', '4:00', '6:00', '8:00', '10:00']);
  assert.deepEqual(timeTicks(50000, 130000, 4).map((t) => t.label), ['1:00', '1:30', '2:00']);
});

test('figures: the cells are the simulator\'s rows, texts shown and exact values kept', () => {
  const rows = [{ key: 'recovery_ms', label: 'recovery', kind: 'ms', help: 'h', a: '30000', a_text: '30 s', b: null, b_text: 'not recovered', diff: null, diff_text: '—', changed: true }];
  assert.deepEqual(figureCells(rows), [{ key: 'recovery_ms', label: 'recovery', help: 'h', a: '30 s', b: 'not recovered', diff: '—', rawA: '30000', rawB: null, changed: true }]);
});

test('report section: its input is the script, B, the names, the run\'s figures, notes and marks, and the images', () => {
  const timeline = { script: { events: [{ at_ms: 10000, op: 'crash', member: 'w1' }] }, b: { rebalance_delay_ms: 0 } };
  const a = small();
  const b = { ...small(), figures: { ...small().figures, recovery_ms: 12000 } };
  const input = sectionInput({ timeline, run: { status: 'done', a, b }, images: [{ which: 'A', svg: '<svg/>', range: [0, 60000] }] });
  assert.equal(input.script, '{"format":"spate-planner-script/1","events":[{"at_ms":10000,"op":"crash","member":"w1"}]}');
  assert.equal(input.b, '{"rebalance_delay_ms":0}');
  assert.deepEqual(input.names, { A: "A: Spate's defaults", B: 'B: rebalance delay 0 s' });
  assert.equal(input.run.status, 'done');
  assert.equal(input.run.b.figures.recovery_ms, 12000);
  assert.deepEqual(input.run.a.marks[0], { t_ms: 10000, kind: 'crash', who: ['w1'] });
  assert.deepEqual(input.images, [{ which: 'A', svg: '<svg/>', range: [0, 60000] }]);
  const failed = sectionInput({ timeline, run: { status: 'error', error: { which: 'B', message: 'bad', code: 'invalid_config', path: '' } } });
  assert.deepEqual(failed.run, { status: 'error', error: { which: 'B', message: 'bad', code: 'invalid_config', path: null } });
  assert.deepEqual(sectionInput({ timeline, run: null }).run, { status: 'not_run' });
  assert.deepEqual(sectionInput({ timeline, run: { status: 'running' } }).run, { status: 'not_run' });
});

test('permalink: the timeline and configuration B round-trip, and name the snapshot without a scenario', () => {
  const timeline = { script: { seed: BIG_SEED, config: { rebalance_delay_ms: 5000 }, events: [{ at_ms: 0, op: 'crash', member: 'w&1' }] }, b: { rebalance_delay_ms: 0 } };
  const frag = toFragment(emptyScenario(), { snapshot: 'job@1', timeline });
  const back = fromFragment(frag);
  assert.deepEqual(back.timeline, timeline);
  assert.equal(back.snapshot, 'job@1');
  assert.equal(back.timelineError, null);
  assert.equal(toFragment(emptyScenario(), { snapshot: 'job@1', timeline: emptyTimeline() }), '');
  const bad = fromFragment('#timeline=%7Bnope');
  assert.equal(bad.timeline, null);
  assert.equal(bad.timelineError.code, 'invalid_script');
  assert.equal(fromFragment('#order=planned').timeline, null);
});

/** A controller stand-in: its state, setTimelineRun, and ask() answered by `answer(script)` when released. */
function fakeController(state, answer) {
  const c = {
    state, runs: [], pending: [],
    setTimelineRun(run) { c.state = { ...c.state, timelineRun: run }; c.runs.push(run); },
    asked: [],
    ask(op, { script, ...args }) {
      c.asked.push(op);
      if (op === 'figuresTable') return Promise.resolve([{ key: 'moves', a: String(args.a?.moves ?? 0), b: args.b ? '0' : null }]);
      assert.equal(op, 'simulate');
      return new Promise((resolve, reject) => c.pending.push({ script, resolve, reject }));
    },
    async release() {
      const p = c.pending.shift();
      try { p.resolve(answer(p.script)); } catch (e) { p.reject(e); }
      await new Promise((r) => setTimeout(r, 0));
    },
  };
  return c;
}

const state0 = (events, b = null) => ({ generation: 3, info: { members: [] }, timeline: { script: { events }, b }, timelineRun: null });

test('runner: A then B; a newer request supersedes the one in flight, whose result is dropped', async () => {
  const c = fakeController(state0([{ at_ms: 0, op: 'crash', member: 'w1' }], { rebalance_delay_ms: 0 }), (script) => ({ script, timing: {} }));
  const runner = new TimelineRunner(c);
  assert.deepEqual(runScripts(c.state.timeline).map((s) => s.which), ['A', 'B']);
  const first = runner.request();
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(c.runs.at(-1).status, 'running');
  assert.equal(c.runs.at(-1).which, 'A');
  // the person changes the script while A runs
  c.state = { ...c.state, timeline: { script: { events: [{ at_ms: 5000, op: 'crash', member: 'w2' }] }, b: null } };
  const second = runner.request();
  assert.equal(second, first); // joins the one loop
  await c.release(); // the old A: dropped
  assert.ok(c.runs.every((r) => r.status !== 'done'));
  await c.release(); // the new A
  const run = await first;
  assert.equal(run.status, 'done');
  assert.equal(run.key, runKey(c.state));
  assert.match(run.a.script, /"member":"w2"/);
  assert.equal(run.b, null);
  // the figures come from the simulator's table, asked for once both configurations ran
  assert.equal(c.asked.at(-1), 'figuresTable');
  assert.deepEqual(run.table, [{ key: 'moves', a: '0', b: null }]);
  assert.equal(c.pending.length, 0);
  assert.ok(runner.current());
  // the same request again: nothing new runs
  assert.equal(await runner.request(), run);
  assert.equal(c.pending.length, 0);
});

test('runner: a failure is the run\'s error with the configuration, code and path; a replaced snapshot drops the run', async () => {
  const fail = (script) => {
    if (script.includes('"rebalance_delay_ms":-5')) throw Object.assign(new Error('bad value'), { code: 'invalid_script', path: 'config.rebalance_delay_ms' });
    return { timing: {} };
  };
  const c = fakeController(state0([], { rebalance_delay_ms: -5 }), fail);
  const runner = new TimelineRunner(c);
  const p = runner.request();
  await new Promise((r) => setTimeout(r, 0));
  await c.release();
  await c.release();
  const run = await p;
  assert.equal(run.status, 'error');
  assert.deepEqual(run.error, { which: 'B', message: 'bad value', code: 'invalid_script', path: 'config.rebalance_delay_ms' });
  // a new snapshot while A runs: nothing is committed as done
  c.state = { ...c.state, timeline: { script: { events: [] }, b: null }, timelineRun: null };
  const q = runner.request();
  await new Promise((r) => setTimeout(r, 0));
  c.state = { ...c.state, generation: 4 };
  await c.release();
  assert.equal(await q, null);
  assert.ok(c.runs.every((r) => r.generation !== 4));
});

test('the real simulator: the model keeps its figures, and its series integrate to the document\'s split-seconds', async () => {
  const { loadPlanner } = await import('../wasm.mjs');
  const { simulateModel } = await import('../../web/timeline/worker/simulate.js');
  const { Planner } = await loadPlanner();
  const planner = Planner.demo(300, 6, 4);
  const script = scriptText({ seed: '7', until_ms: 200000, events: [{ at_ms: 0, op: 'crash', member: 'worker-02' }, { at_ms: 60000, op: 'crash_leader' }, { at_ms: 90000, op: 'start', member: 'new-01' }] });
  const model = simulateModel(planner, (fn) => fn(), script);
  const doc = JSON.parse(planner.simulate(script));
  assert.deepEqual(model.figures, doc.figures);
  assert.ok(doc.figures.idle_split_ms > 0 && doc.claims.length > 0);
  const idleMs = [...model.idleCount].reduce((s, v, k) => s + v * Math.min(model.stepMs, model.endMs - k * model.stepMs), 0);
  assert.ok(Math.abs(idleMs - doc.figures.idle_split_ms) < 1e-6 * doc.figures.idle_split_ms, `${idleMs} vs ${doc.figures.idle_split_ms}`);
  // each member's lanes integrate to the time the document has it read a split
  const held = new Map();
  for (const list of Object.values(doc.splits)) for (const i of list) if (i.phase === 'running' || i.phase === 'draining') held.set(i.member, (held.get(i.member) ?? 0) + i.to_ms - i.from_ms);
  model.members.forEach((name, m) => {
    const row = model.lanes.subarray(m * model.buckets, (m + 1) * model.buckets);
    const got = [...row].reduce((s, v, k) => s + v * Math.min(model.stepMs, model.endMs - k * model.stepMs), 0);
    const want = held.get(name) ?? 0;
    assert.ok(Math.abs(got - want) <= 1e-9 * Math.max(1, want), `${name}: ${got} vs ${want}`);
  });
  assert.ok(model.members.includes('new-01'));
  // what the chart draws is the simulator's: every member of seven drawn, nothing folded
  assert.deepEqual(model.charts.load.shown, model.members.map((_, i) => i));
  assert.equal(model.charts.load.rest, null);
  assert.equal(defaultMode(model), 'stack');
  // the summary is the document's: rules, counts, and a mark for each scripted happening and election
  assert.deepEqual(model.rules, { rules: doc.rules, source: doc.rules_source, note: doc.rules_note });
  const parked = doc.timeline.filter((e) => e.event === 'parked_by_race').length;
  assert.equal(parked, doc.figures.splits_parked_by_race);
  assert.deepEqual(model.counts, { claims: doc.claims.length, quarantines: doc.quarantines.length, parked_by_race: parked, elections: doc.elections.length, events: doc.timeline.length });
  assert.equal(model.firstEventMs, 0);
  assert.deepEqual(model.marks[0], { t_ms: 0, kind: 'crash', who: ['worker-02'], text: '0:00 crashed: worker-02' });
  const elections = model.marks.filter((m) => m.kind === 'election');
  assert.deepEqual(elections.flatMap((m) => m.who.map((w) => [m.t_ms, w])), doc.elections.map((e) => [e.t_ms, e.member]));
  assert.ok(model.marks.some((m) => m.kind === 'start' && m.t_ms === 90000 && m.who.includes('new-01')));
  planner.free();
});

test('the real simulator folds a large fleet: the members the script touches are drawn, B draws A\'s', async () => {
  const { loadPlanner } = await import('../wasm.mjs');
  const { simulateModel } = await import('../../web/timeline/worker/simulate.js');
  const { Planner } = await loadPlanner();
  const planner = Planner.demo(600, 16, 4);
  const crash = { seed: '7', until_ms: 200000, events: [{ at_ms: 0, op: 'crash', member: 'worker-13' }, { at_ms: 9000, op: 'stop', member: 'worker-02' }] };
  const a = simulateModel(planner, (fn) => fn(), scriptText(crash));
  for (const metric of ['load', 'lanes']) {
    const c = a.charts[metric];
    assert.equal(c.shown.length, 8, metric);
    assert.deepEqual(c.names, c.shown.map((i) => a.members[i]));
    assert.ok(c.names.includes('worker-13') && c.names.includes('worker-02'), `${metric}: ${c.names}`);
    assert.deepEqual(c.shown, [...c.shown].sort((x, y) => x - y), 'in member order');
    assert.equal(c.rest.count, a.members.length - 8);
    assert.equal(c.rest.label, `${a.members.length - 8} other members`);
    // the rest's sum and mean are the folded members' own values, its band within them
    const folded = a.members.map((_, i) => i).filter((i) => !c.shown.includes(i));
    for (let k = 0; k < a.buckets; k += 17) {
      const at = folded.map((i) => a[metric][i * a.buckets + k]);
      assert.ok(Math.abs(c.rest.sum[k] - at.reduce((x, y) => x + y, 0)) < 1e-6 * Math.max(1, c.rest.sum[k]));
      assert.ok(c.rest.lo[k] <= c.rest.hi[k] && Math.min(...at) <= c.rest.lo[k] && c.rest.hi[k] <= Math.max(...at));
      assert.ok(Math.abs(c.rest.mean[k] * folded.length - c.rest.sum[k]) < 1e-6 * Math.max(1, c.rest.sum[k]));
    }
  }
  assert.equal(defaultMode(a), 'lines');
  // B, asked for with A's names, draws the same members in the same order (colours)
  const shownAs = { load: a.charts.load.names, lanes: a.charts.lanes.names };
  const b = simulateModel(planner, (fn) => fn(), scriptText({ ...crash, config: { rebalance_delay_ms: 0 } }), undefined, shownAs);
  assert.deepEqual(b.charts.load.names, a.charts.load.names);
  assert.deepEqual(b.charts.lanes.names, a.charts.lanes.names);
  planner.free();
});

test('the real simulator: the figures table of A and B, exact beyond 2^53, from the documents\' figures', async () => {
  const { loadPlanner } = await import('../wasm.mjs');
  const { figuresTable, Planner } = await loadPlanner();
  const planner = Planner.demo(300, 6, 4);
  const crash = { seed: '7', until_ms: 200000, events: [{ at_ms: 0, op: 'crash', member: 'worker-02' }] };
  const a = JSON.parse(planner.simulate(scriptText(crash))).figures;
  const b = JSON.parse(planner.simulate(scriptText({ ...crash, config: { rebalance_delay_ms: 0 } }))).figures;
  const rows = figuresTable(a, b, true);
  const claims = rows.find((r) => r.key === 'claims');
  assert.equal(claims.a, String(a.claims));
  assert.equal(claims.diff, b.claims === a.claims ? '0' : `${b.claims > a.claims ? '+' : '-'}${Math.abs(b.claims - a.claims)}`);
  // weighted idle work beyond 2^53, one byte-second apart: exact
  const big = figuresTable({ ...a, idle_weighted: '9007199254740993000' }, { ...a, idle_weighted: '9007199254740994000' }, true);
  const w = big.find((r) => r.key === 'idle_weighted');
  assert.deepEqual([w.a, w.diff, w.diff_text, w.changed], ['9007199254740993000', '+1000', '+1 B·s', true]);
  // without B: no B column; without events: no recovery
  const alone = figuresTable({ ...a, recovery_ms: null }, null, false);
  assert.deepEqual([alone[0].a, alone[0].a_text, alone[0].b, alone[0].diff_text], [null, 'no events', null, null]);
  assert.throws(() => figuresTable({ ...a, idle_weighted: 'lots' }, null, true), (e) => e.code === 'invalid_figures' && e.path === 'A');
});

test('the real simulator writes the report section from what the page gathers, names escaped', async () => {
  const { loadPlanner } = await import('../wasm.mjs');
  const { timelineSection } = await loadPlanner();
  const hostile = '<img src=x onerror=alert(1)>|x`';
  const timeline = { script: { events: [{ at_ms: 10000, op: 'crash', member: hostile }] }, b: { rebalance_delay_ms: 0 } };
  const a = small();
  a.marks[0].who = [hostile];
  const b = { ...small(), figures: { ...small().figures, recovery_ms: 12000 } };
  const section = timelineSection(sectionInput({ timeline, run: { status: 'done', a, b }, images: [{ which: 'A', svg: '<svg/>' }] }));
  const md = section.markdown;
  assert.match(md, /^## Timeline/);
  assert.ok(md.includes('\n| recovery | 30 s | 12 s | −18 s |\n'), md);
  // the chart is a file beside the document, linked by name (no data: URI)
  assert.deepEqual(section.images, [{ name: 'review-timeline-a.svg', svg: '<svg/>' }]);
  assert.ok(md.includes('](review-timeline-a.svg)') && !md.includes('data:'), md);
  assert.ok(md.includes('- 0\\:10 crashed\\: \\<img src\\=x onerror\\=alert\\(1\\)\\>\\|x\\`'), md);
  assert.throws(() => timelineSection({ script: '{}' }), (e) => e.code === 'invalid_section');
});

test('the real simulator: the fleet at an instant from the kept run (SimRun.fleetAt) is what its document says', async () => {
  const { loadPlanner } = await import('../wasm.mjs');
  const { Planner } = await loadPlanner();
  const planner = Planner.demo(300, 6, 4);
  const script = scriptText({ seed: '7', until_ms: 200000, events: [{ at_ms: 0, op: 'crash', member: 'worker-02' }, { at_ms: 60000, op: 'crash_leader' }, { at_ms: 90000, op: 'start', member: 'new-01' }] });
  const run = planner.simulateRun(script);
  const doc = JSON.parse(planner.simulate(script));
  for (const t of [0, 1234, 30000, 60000, 61000, 90000, 150000, 200000]) {
    const f = run.fleetAt(t);
    assert.equal(f.t_ms, String(t));
    // from the document: each split's interval holding t ([from, to); the end in the last one)
    const lanes = {};
    const idle = [];
    for (const [id, list] of Object.entries(doc.splits)) {
      const iv = list.find((i) => i.from_ms <= t && (t < i.to_ms || (t === 200000 && i.to_ms === t)));
      if (!iv) continue;
      if (iv.phase === 'running' || iv.phase === 'draining') lanes[iv.member] = (lanes[iv.member] || 0) + 1;
      if (iv.phase === 'idle') idle.push([id, iv.from_ms]);
    }
    assert.deepEqual(Object.fromEntries(f.members.filter((m) => Number(m.lanes)).map((m) => [m.name, Number(m.lanes)])), lanes, `lanes at ${t}`);
    assert.deepEqual(f.idle.map((x) => [x.id, Number(x.since_ms)]), idle, `idle at ${t}`);
    assert.equal(Number(f.counts.idle), idle.length);
  }
  // the crashed member runs nothing after its crash, and is said to be crashed
  const later = run.fleetAt(30000).members.find((m) => m.name === 'worker-02');
  assert.deepEqual([later.state, Number(later.lanes), later.load], ['crashed', 0, '0']);
  // at most idleLimit listed, the count and weight still of them all
  const all = run.fleetAt(1234);
  assert.ok(all.idle.length > 3, `${all.idle.length} idle at 0:01`);
  const few = run.fleetAt(1234, 3);
  assert.deepEqual(few.idle, all.idle.slice(0, 3));
  assert.deepEqual([few.counts, few.idle_weight], [all.counts, all.idle_weight]);
  assert.equal(run.fleetAt(1e12).t_ms, '200000');
  run.free();
  planner.free();
});

test('the real simulator: a scrub of 10,000 splits × 100 members through the module (a figure, not a check)', async () => {
  const { loadPlanner } = await import('../wasm.mjs');
  const { Planner } = await loadPlanner();
  const planner = Planner.demo(10000, 100, 1);
  const script = scriptText({ until_ms: 600000, events: [{ at_ms: 60000, op: 'crash', member: 'worker-60' }] });
  let t0 = performance.now();
  const run = planner.simulateRun(script);
  const simMs = performance.now() - t0;
  t0 = performance.now();
  let idle = 0;
  for (let k = 0; k < 100; k++) idle += run.fleetAt(k * 6000).idle.length;
  const atMs = (performance.now() - t0) / 100;
  // eslint-disable-next-line no-console
  console.log(`# scrub 10,000 x 100 in wasm (Node): simulateRun ${simMs.toFixed(0)} ms, fleetAt ${atMs.toFixed(2)} ms per instant (to a JS object), ${idle} idle split-instants`);
  assert.ok(idle >= 0);
  run.free();
});
