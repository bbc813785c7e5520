// What the Timeline draws of one run: the simulator's series (SimRun.series: per-member load and
// lanes and the idle work as bucket means, so a series' area is exactly its split-milliseconds)
// and its summary (SimRun.summary: the figures, the event marks and the counts). Built in the worker
// (timeline/worker/simulate.js), read on the page; no DOM, no wasm. The fleet at an instant is
// not here either: the worker keeps the simulator's run and asks it (SimRun.fleetAt).

/**
 * The model of one run. summary: the run's SimRun.summary() (the document's rules and figures,
 * the marks with their sentences, the counts, the first event's time, the recovery's sentences); series: its
 * SimRun.series() (with `charts`: what the chart draws of each metric, the members one by one
 * and the rest folded).
 */
export function timelineModel(summary, series) {
  const { members, stepMs, buckets, endMs, load, lanes, idleLoad, idleCount, mostIdleMs, charts, idleLabel } = series;
  return {
    rules: { rules: summary.rules, source: summary.rules_source, note: summary.rules_note },
    figures: summary.figures, recovery: summary.recovery, endMs, stepMs, buckets, members, firstEventMs: summary.first_event_ms,
    load, lanes, idleLoad, idleCount, mostIdleMs, charts, idleLabel, marks: summary.marks, counts: summary.counts,
  };
}

/** The typed arrays of a model, for a zero-copy postMessage. */
export function transferables(m) {
  const folded = Object.values(m.charts).flatMap((c) => (c.rest ? [c.rest.sum, c.rest.lo, c.rest.hi, c.rest.mean] : []));
  const arrays = [m.load, m.lanes, m.idleLoad, m.idleCount, ...folded];
  return [...new Set(arrays.map((a) => a.buffer))];
}
