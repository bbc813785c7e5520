// What the fleet chart shows, computed without the DOM: rows in order, the top-N fold with the
// heaviest members pinned, the scale (axis ticks in round binary units, common/shared/ticks.js),
// and the words for each member. Every mark is the core's: a bar is "over" exactly when the plan
// view's summary says so, against the mean it names (now: the mean now; planned: the planned
// mean), and the chart draws both means where the summary puts them.
import { humanBytes, exactBytes, signedBytes } from '../../common/shared/format.js';
import { ticks } from '../../common/shared/ticks.js';
import { sortRows } from '../../common/shared/sort.js';
import { big } from '../../common/shared/format.js';

/** Members shown before the rest are folded, when the fleet is larger than FOLD_OVER. */
export const TOP_N = 25;
export const FOLD_OVER = 40;

/** The core's count of splits at risk that `name` holds (`at_risk.by_member`, an own key only: a member may be named `constructor`). */
function atRiskOf(byMember, name) {
  return Object.hasOwn(byMember, name) ? byMember[name] : 0;
}

/** Chart rows of a plan view: loads as BigInt, the summary's marks of each member, and the splits at risk it holds (the core's `at_risk.by_member`). */
export function memberRows(view) {
  const marks = view.summary.marks;
  const byMember = view.at_risk.by_member;
  return view.report.members.map((m, i) => ({
    name: m.name,
    cap: m.cap,
    defaultCap: m.default_cap,
    lanes: m.lanes,
    lanesNow: m.lanes_now,
    now: big(m.load_now),
    planned: big(m.load_planned),
    change: m.load_change,
    gained: m.gained,
    lost: m.lost,
    marks: marks[i],
    atRisk: atRiskOf(byMember, m.name),
  }));
}

/** Labels of a member for the tooltip and for assistive technology: every figure the core's (its change is `load_change`). */
export function describeMember(r, pct) {
  const k = r.marks;
  const full = k.at_cap_planned;
  const over = [k.over_now && `now more than ${pct}% over the mean now`, k.over_planned && `planned more than ${pct}% over the planned mean`].filter(Boolean);
  const risk = r.atRisk ? `${r.atRisk} split${r.atRisk === 1 ? '' : 's'} at risk of quarantine (one non-graceful end away)` : null;
  return {
    short: `${r.name}: now ${humanBytes(r.now)}, planned ${humanBytes(r.planned)}; lanes ${r.lanes} of ${r.cap}${full ? ', full' : ''}${over.length ? `, ${over.join(', ')}` : ''}${risk ? `; holds ${risk}` : ''}`,
    lines: [
      `now ${humanBytes(r.now)} (${exactBytes(r.now)}), ${k.now_over_mean}× the mean now`,
      `planned ${humanBytes(r.planned)} (${exactBytes(r.planned)}), ${k.planned_over_mean}× the planned mean`,
      `change ${signedBytes(r.change)}: gains ${r.gained} split${r.gained === 1 ? '' : 's'}, loses ${r.lost}`,
      `lanes ${r.lanes} of ${r.cap}${r.defaultCap ? " (the leader's default cap)" : ''}${full ? ': every lane used' : ''}`,
      ...(risk ? [`holds ${risk}`] : []),
    ],
    full,
  };
}

/** The heaviest members the summary names: { now, planned } (names, or null). */
function heaviestOf(summary) {
  return { now: summary.heaviest_now?.name ?? null, planned: summary.heaviest_planned?.name ?? null };
}

/**
 * The chart's model of a plan view: rows sorted by `order`; when there are more than FOLD_OVER
 * and not `all`, the heaviest member now and the heaviest planned first (pinned: whatever the
 * order, they are always in view), then the first TOP_N of the order (and the members in `keep`:
 * the focused one, the one searched for), the rest folded. Each row says why it is pinned.
 */
export function chartModel(view, { order = 'name', all = false, keep = [], tickCount = 5 } = {}) {
  const rows = memberRows(view);
  const s = view.summary;
  const sorted = sortRows(rows, order);
  let max = 0n;
  for (const r of rows) {
    if (r.now > max) max = r.now;
    if (r.planned > max) max = r.planned;
  }
  const scale = ticks(max, tickCount);
  const heavy = heaviestOf(s);
  const pin = (r) => [r.name === heavy.now && 'heaviest now', r.name === heavy.planned && 'heaviest planned'].filter(Boolean);
  const fold = !all && rows.length > FOLD_OVER;
  let shown = sorted.map((r) => ({ ...r, pinned: pin(r) }));
  if (fold) {
    // the heaviest now first, then the heaviest planned (the tiles' order)
    const pinned = [heavy.now, heavy.planned].filter((n, i, all) => n !== null && all.indexOf(n) === i)
      .map((n) => shown.find((r) => r.name === n)).filter(Boolean);
    const rest = shown.filter((r, i) => !r.pinned.length && (i < TOP_N || keep.includes(r.name)));
    shown = [...pinned, ...rest];
  }
  return {
    rows: shown,
    folded: sorted.length - shown.length,
    total: sorted.length,
    pct: s.over_mean_percent,
    means: {
      now: { at: s.now.mean_load, label: `mean now ${humanBytes(BigInt(Math.round(s.now.mean_load)))}` },
      planned: { at: s.planned.mean_load, label: `planned mean ${humanBytes(BigInt(Math.round(s.planned.mean_load)))}` },
    },
    end: scale.end,
    ticks: scale.ticks,
    at: (v) => Number(v) / scale.end,
  };
}

/** Arrow keys, Home, End, Page Up and Page Down among the rows: the row to focus, or null. */
export function rowKeyTarget(key, at, count) {
  switch (key) {
    case 'ArrowDown': return Math.min(count - 1, at + 1);
    case 'ArrowUp': return Math.max(0, at - 1);
    case 'Home': return 0;
    case 'End': return count - 1;
    case 'PageDown': return Math.min(count - 1, at + 10);
    case 'PageUp': return Math.max(0, at - 10);
    default: return null;
  }
}
