// The scrubber's starting time: the most idle moment of a run, read from the model's idle
// counts (the fleet at any instant is the simulator's: SimRun.fleetAt, asked in the worker).

/**
 * The time (ms, whole seconds) with the most idle splits from the first event on (from the start
 * without events): the middle of the first stretch at that most; the first event's time when
 * nothing is idle.
 */
export function mostIdleMs(model) {
  const from = Math.min(model.buckets - 1, Math.floor((model.firstEventMs ?? 0) / model.stepMs));
  let best = from;
  for (let k = from + 1; k < model.buckets; k++) if (model.idleCount[k] > model.idleCount[best]) best = k;
  if (!(model.idleCount[best] > 0)) return Math.min(model.endMs, model.firstEventMs ?? 0);
  let last = best;
  while (last + 1 < model.buckets && model.idleCount[last + 1] === model.idleCount[best]) last++;
  const mid = ((best + last + 1) / 2) * model.stepMs;
  return Math.min(model.endMs, Math.floor(mid / 1000) * 1000);
}
