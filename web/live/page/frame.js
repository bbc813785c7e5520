// One frame of a live job or one moment of a recording, planned with the what-if shown: the
// worker makes the frame (or moves to the moment) and plans the scenario the page holds; when
// the person changed the what-if meanwhile, the one shown now is planned on the same state, so
// a plan is never committed beside another what-if's changes.

/**
 * Asks `session`'s worker for `op` (`liveNext` or `replaySeek`, with `args`) and the plan of the
 * scenario shown now: { generation, r (the worker's answer), scenario, result (with its
 * roundTripMs) }, or null when a newer request or the session's end made it moot.
 */
export async function frameOfScenario(session, op, args) {
  const c = session.c;
  const generation = ++c.loadSeq;
  const t0 = performance.now();
  let scenario = c.state.scenario;
  const r = await c.client.call(op, { ...args, generation, scenario });
  if (generation !== c.loadSeq || session.closed) return null;
  let planned = r.result;
  if (c.state.scenario !== scenario) {
    scenario = c.state.scenario;
    planned = await c.client.call('analyse', { generation, scenario });
    if (generation !== c.loadSeq || session.closed) return null;
  }
  return { generation, r, scenario, result: { ...planned, roundTripMs: performance.now() - t0 } };
}
