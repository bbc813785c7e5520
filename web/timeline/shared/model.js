// What the Timeline draws of one run: the simulator's series (SimRun.series: per-member load and
// lanes and the idle work as bucket means, so a series' area is exactly its split-milliseconds)
// with the document's figures and the event marks read from its timeline. Built in the worker
// (timeline/worker/simulate.js), read on the page; no DOM, no wasm. The fleet at an instant is
// not here either: the worker keeps the simulator's run and asks it (SimRun.fleetAt).

const MARK_EVENTS = {
  crashed: 'crash', stopped: 'stop', started: 'start', cap_set: 'cap', leader_elected: 'election',
  splits_added: 'splits', failed: 'fail', ignored: 'ignored',
};

/** The marks on the time axis: scripted happenings and elections, same kind at the same instant folded into one. */
export function marksOf(doc, firstEventMs) {
  const marks = [];
  for (const e of doc.timeline) {
    const kind = MARK_EVENTS[e.event];
    if (!kind) continue;
    const who = e.member ?? e.split ?? (e.event === 'splits_added' ? `${e.count} × ${e.prefix}…` : e.reason ?? '');
    const last = marks[marks.length - 1];
    if (last && last.t === e.t_ms && last.kind === kind) last.who.push(who);
    else marks.push({ t: e.t_ms, kind, who: [who] });
  }
  const r = doc.figures.recovery_ms;
  if (r !== null && r !== undefined && firstEventMs !== null) marks.push({ t: firstEventMs + r, kind: 'recovered', who: [] });
  return marks.sort((a, b) => a.t - b.t);
}

/**
 * The model of one run. doc: the parsed simulation document; series: the run's SimRun.series();
 * firstEventMs: the first scripted event's time (null without events).
 */
export function timelineModel(doc, series, firstEventMs = null) {
  const { members, stepMs, buckets, endMs, load, lanes, idleLoad, idleCount } = series;
  return {
    rules: { rules: doc.rules, source: doc.rules_source, note: doc.rules_note },
    figures: doc.figures, endMs, stepMs, buckets, members, firstEventMs, load, lanes, idleLoad, idleCount,
    marks: marksOf(doc, firstEventMs),
    counts: { claims: doc.claims.length, quarantines: doc.quarantines.length, elections: doc.elections.length, events: doc.timeline.length },
  };
}

/** The typed arrays of a model, for a zero-copy postMessage. */
export function transferables(m) {
  const arrays = [m.load, m.lanes, m.idleLoad, m.idleCount];
  return [...new Set(arrays.map((a) => a.buffer))];
}
