// The fleet at one instant of a run (the scrubber): each member's state, load and lanes, the
// leader, and which splits are idle, read from the model's split intervals. No DOM.
import { PHASES } from './model.js';

/** The index of the interval of split `s` holding `t` ([from, to); the run's end belongs to the last), or -1. */
export function intervalAt(splits, s, t) {
  let lo = splits.offsets[s];
  let hi = splits.offsets[s + 1] - 1;
  if (hi < lo || t < splits.from[lo]) return -1;
  if (t >= splits.to[hi]) return t === splits.to[hi] ? hi : -1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (splits.from[mid] <= t) lo = mid; else hi = mid - 1;
  }
  return t < splits.to[lo] ? lo : -1;
}

/** A member's state at `t`: running, or how its last process ended (crashed, stopped), or not started. */
export function memberState(lives, t, end) {
  let last = null;
  for (const l of lives) {
    if (l.from <= t && (t < l.to || (t === end && l.to === end && l.end === null))) return 'running';
    if (l.to <= t) last = l;
  }
  return last ? last.end : 'not started';
}

/** Who leads at `t` (null: nobody). */
export function leaderAt(leaders, t) {
  return leaders.find((l) => l.from <= t && t < l.to)?.member ?? null;
}

/**
 * The fleet at `t` (ms): { t, members: [{ name, state, leader, load, lanes, draining }],
 * idle: [{ id, weight, since, last }] (last: who held it before: the previous interval's member,
 * or for a split idle from its first interval the snapshot's owner), counts per phase, leader }.
 */
export function fleetAt(model, t) {
  const { splits, members } = model;
  const load = new Float64Array(members.length);
  const lanes = new Uint32Array(members.length);
  const draining = new Uint32Array(members.length);
  const counts = Object.fromEntries(PHASES.map((p) => [p, 0]));
  const idle = [];
  for (let s = 0; s < splits.ids.length; s++) {
    const j = intervalAt(splits, s, t);
    if (j < 0) continue;
    const phase = splits.phase[j];
    counts[PHASES[phase]]++;
    const m = splits.member[j];
    if (phase <= 1 && m >= 0) {
      load[m] += splits.weight[s];
      lanes[m]++;
      if (phase === 1) draining[m]++;
    } else if (phase === 2) {
      const before = j > splits.offsets[s] ? splits.member[j - 1] : -1;
      const last = before >= 0 ? members[before] : j === splits.offsets[s] ? splits.owner0?.[s] ?? null : null;
      idle.push({ id: splits.ids[s], weight: splits.weight[s], since: splits.from[j], last });
    }
  }
  const leader = leaderAt(model.leaders, t);
  return {
    t,
    leader,
    counts,
    idle,
    members: members.map((name, i) => ({
      name, state: memberState(model.alive[name] || [], t, model.endMs), leader: name === leader,
      load: load[i], lanes: lanes[i], draining: draining[i],
    })),
  };
}

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
