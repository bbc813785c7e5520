// What the Sweep view shows, without the DOM: the axes a sweep can vary, reading a request and
// the targets from the form, the range a sweep starts with, and the chart's scales (the splits
// axis in log scale when its values span orders of magnitude). Which steps meet the targets,
// which value is today's fleet (each step's `today`, and `Planner.sweepToday`), and the most
// steps a sweep takes, are the core's (the worker's `sweepVerdict`, `sweepToday`, and
// `Planner.maxSweepSteps` where the worker runs the sweep).
import { humanBytes, thousands } from '../../common/shared/format.js';

export const AXES = {
  add_members: { label: 'members added', option: 'Members added (added-01, added-02, …)', from: 0, to: 8, adds: true },
  // the fleet's size: fewer members than today's remove some (in the order named), more add some
  members_lightest_first: { label: 'fleet size', option: 'Fleet size, removing the lightest first', from: 1, to: 8, adds: true, size: true },
  members_heaviest_first: { label: 'fleet size', option: 'Fleet size, removing the heaviest first', from: 1, to: 8, adds: true, size: true },
  members_last_named_first: { label: 'fleet size', option: 'Fleet size, removing the last by name first', from: 1, to: 8, adds: true, size: true },
  default_cap: { label: 'leader default cap', option: "The leader's default cap", from: 2, to: 32 },
  member_cap: { label: "every member's cap", option: "Every member's cap", from: 2, to: 32 },
};

function invalid(message) {
  return Object.assign(new Error(message), { code: 'invalid_sweep' });
}

function whole(text, what) {
  const t = String(text ?? '').trim();
  if (!/^\d+$/.test(t) || Number(t) > 4294967295) throw invalid(`${what} is a whole number (0 or more)`);
  return Number(t);
}

/** A sweep request from the form's text: { axis, from, to, cap } (cap 0: the default cap). */
export function checkSweep({ axis, from, to, cap, crash = false }) {
  if (!Object.hasOwn(AXES, axis)) throw invalid(`${axis} is not a sweep axis`);
  const f = whole(from, 'From');
  const t = whole(to, 'To');
  if (t < f) throw invalid(`To (${t}) is below From (${f})`);
  const adds = AXES[axis].adds;
  const c = adds && String(cap ?? '').trim() !== '' ? whole(cap, 'The cap of added members') : 0;
  if (adds && String(cap ?? '').trim() !== '' && c === 0) throw invalid('The cap of added members is 1 or more (empty: the default cap)');
  return { axis, from: f, to: t, cap: c, crash: Boolean(crash) };
}

/** Targets from the form's text: { maxOverMean, maxQueued }. */
export function checkTargets({ maxOverMean, maxQueued }) {
  const r = Number(String(maxOverMean ?? '').trim());
  if (!String(maxOverMean ?? '').trim() || !Number.isFinite(r) || r < 1) throw invalid('The max/mean target is a ratio of 1 or more (1.05: 5% over the mean)');
  return { maxOverMean: r, maxQueued: whole(maxQueued, 'The queued target') };
}

/** Steps a default range spans around today's value when the axis's own range leaves it out. */
const AROUND = 32;

/**
 * The range a sweep of `axis` starts with: the axis's own (2..32 for caps), widened to take in
 * `today` (the core's value that is today's fleet, or null: a cap of 96 gives 64..128), so that
 * today's fleet is always one of the steps.
 */
export function defaultRange(axis, today) {
  const a = AXES[axis];
  // the fleet's size: from one member to a few more than today's
  if (a.size && Number.isInteger(today)) return { from: 1, to: Math.max(a.to, today + 2) };
  if (today === null || today === undefined || (today >= a.from && today <= a.to)) return { from: a.from, to: a.to };
  if (today < a.from) return { from: today, to: a.to };
  return { from: Math.max(a.from, today - AROUND), to: today + AROUND };
}

/** Round steps 1, 2, 2.5, 5 × 10^k at or above `raw`. */
function niceStep(raw) {
  const p = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= raw - 1e-12) return m * p;
  return 10 * p;
}

/** The x scale over from..to with at most `count` integer ticks. */
export function valueScale(from, to, count) {
  const span = Math.max(1, to - from);
  const step = Math.max(1, Math.ceil(niceStep(span / Math.max(1, count - 1))));
  const ticks = [];
  for (let v = Math.ceil(from / step) * step; v <= to; v += step) ticks.push({ value: v, label: thousands(v), at: (v - from) / span });
  return { at: (v) => (to === from ? 0.5 : (v - from) / span), ticks };
}

/** The max/mean scale: from 1 to a round value above every ratio and the target. */
export function ratioScale(ratios, target, count = 5) {
  const hi = Math.max(1.01, target ?? 1, ...ratios.filter(Number.isFinite));
  const step = niceStep((hi - 1) / Math.max(1, count - 1));
  const end = 1 + Math.ceil((hi - 1) / step - 1e-9) * step;
  const ticks = [];
  const digits = [2, 3].find((d) => Math.abs(step * 10 ** d - Math.round(step * 10 ** d)) < 1e-6) ?? 4;
  for (let v = 1; v <= end + step / 2; v += step) ticks.push({ value: v, label: v.toFixed(digits), at: (v - 1) / (end - 1) });
  return { at: (v) => (v - 1) / (end - 1), ticks };
}

function short(n) {
  if (n >= 1e6) return `${n / 1e6}M`;
  if (n >= 1e3) return `${n / 1e3}k`;
  return String(n);
}

/**
 * The splits scale (queued, moves): log (of 1 + n) when the values other than zero span more
 * than 20× (queued falling from thousands to a few, beside moves in the hundreds), else linear
 * from 0.
 */
export function countScale(values, count = 5) {
  const max = Math.max(0, ...values);
  const low = Math.max(1, Math.min(...values.filter((v) => v > 0), max));
  const log = max >= 20 && max / low > 20;
  if (log) {
    const decades = Math.max(1, Math.ceil(Math.log10(max + 1)));
    const end = Math.log10(1 + 10 ** decades);
    const ticks = [0, ...Array.from({ length: decades + 1 }, (_, i) => 10 ** i)]
      .map((v) => ({ value: v, label: short(v), at: Math.log10(1 + v) / end }));
    return { log: true, at: (v) => Math.log10(1 + v) / end, ticks };
  }
  const step = Math.max(1, Math.ceil(niceStep(Math.max(1, max) / Math.max(1, count - 1))));
  const end = Math.max(step, Math.ceil(max / step) * step);
  const ticks = [];
  for (let v = 0; v <= end; v += step) ticks.push({ value: v, label: short(v), at: v / end });
  return { log: false, at: (v) => v / end, ticks };
}

/** The members a step of the fleet's size removes, in order (the core's), or '—'. */
export function removedCell(s) {
  return s.removed?.length ? s.removed.join(', ') : '—';
}

/** A step as the cells of the table (text). */
export function stepCells(s) {
  return [thousands(s.value), thousands(s.members), humanBytes(s.max_load), s.max_over_mean, s.max_over_bound,
    thousands(s.queued), thousands(s.moves), humanBytes(s.bytes_moved), thousands(s.at_cap)];
}

export const STEP_HEADERS = ['members', 'max load', 'max / mean', 'max / bound', 'queued', 'moves', 'moved', 'at cap'];

/** The columns of a sweep with a crash of each step's heaviest member (after STEP_HEADERS). */
export const CRASH_HEADERS = ['crashed', 'recovery', 'idle split-seconds'];

/** A step's crash cells: the member, its recovery (or "never"), the idle split-seconds (the core's seconds). */
export function crashCells(s) {
  const c = s.crash;
  if (!c) return ['—', '—', '—'];
  return [c.member, c.recovery_s === null ? 'never' : `${c.recovery_s} s`, thousands(c.idle_split_s)];
}
