// What the recovery figure rests on, in words (the simulator's figures: docs/simulator.md,
// "Why a split does not run again"): how many splits the events took, which of them never ran
// again and why, what else stopped, and what was idle or quarantined before the first event —
// the starting fleet's, not the events' doing. No DOM.
import { plural, thousands } from '../../common/shared/format.js';

/** The words for each reason a taken split does not run at the end (`member`: the one it names). */
export const STUCK = {
  parked_by_race: () => 'parked by the claim race right after a claim: it never runs again',
  quarantined: () => 'quarantined: its attempts ran out',
  leased_by_gone: (m) => `still leased by ${m ?? 'a process'} that is gone (the lease expires a lease duration after its last write)`,
  no_leader: () => 'nobody leads, so nobody assigns it',
  withheld: (m) => `still withheld by the rebalance delay (${m ?? 'its owner'} departed)`,
  no_spec: () => 'no spec: no worker may claim it',
  no_free_lane: () => "no free lane: the leader's plan queues it",
  member_full: (m) => `given to ${m ?? 'a member'}, whose lanes are all held`,
  pending: (m) => `given to ${m ?? 'a member'}, not claimed yet`,
};

/** One reason in words (an unknown one as its code). */
export function stuckText(reason, member) {
  return STUCK[reason]?.(member) ?? reason;
}

/** The not-recovered splits by reason: [{ reason, count, members, splits }], the largest first. */
export function stuckGroups(list) {
  const by = new Map();
  for (const n of list) {
    if (!by.has(n.reason)) by.set(n.reason, { reason: n.reason, count: 0, members: new Set(), splits: [] });
    const g = by.get(n.reason);
    g.count++;
    g.splits.push(n.split);
    if (n.member) g.members.add(n.member);
  }
  return [...by.values()].map((g) => ({ ...g, members: [...g.members] })).sort((a, b) => b.count - a.count);
}

/** A reason group as a phrase: `2 given to worker-03 or worker-05, whose lanes are all held`. */
function groupPhrase(g) {
  const who = g.members.length === 0 ? undefined : g.members.length <= 3 ? g.members.join(' or ') : `${g.members.slice(0, 3).join(', ')} and ${g.members.length - 3} more`;
  return `${thousands(g.count)} ${stuckText(g.reason, who)}`;
}

/**
 * Sentences for one configuration's figures ({ taken, stuck, others, before }; each null when
 * it has nothing to say): what the events took and what never ran again, why. `planned`: the
 * run started from the fleet settled on its plan (what was idle then is the plan's queue).
 */
export function recoverySentences(f, { hasEvents = true, planned = false } = {}) {
  if (!hasEvents || f.splits_taken === undefined) return { taken: null, stuck: null, others: null, before: null };
  const n = f.not_recovered?.length ?? 0;
  const taken = f.splits_taken === 0
    ? 'The events took no split (none ran on a member that crashed or stopped): recovery is immediate.'
    : `The events took ${plural(f.splits_taken, 'split')} (running on a member as it crashed or stopped, or failed)${n ? '' : '; every one runs again'}.`;
  const stuck = n
    ? `Not recovered: ${thousands(n)} of them never ran again — ${stuckGroups(f.not_recovered).map(groupPhrase).join('; ')}.`
    : null;
  const others = f.others_not_running
    ? `${plural(f.others_not_running, 'other split')} that ran before the first event ${f.others_not_running === 1 ? 'does' : 'do'} not run at the end (the leader moved ${f.others_not_running === 1 ? 'it' : 'them'}, and had no lane).`
    : null;
  const whose = planned ? "the settled fleet's own (what its plan queues, and its quarantined splits), not the events' doing" : "the snapshot's own, not the events' doing (start from the fleet settled on its plan to leave its motion out)";
  const before = f.idle_before || f.quarantined_before
    ? `Before the first event ${plural(f.idle_before, 'split')} ${f.idle_before === 1 ? 'was' : 'were'} idle and ${thousands(f.quarantined_before)} quarantined: ${whose}.`
    : null;
  return { taken, stuck, others, before };
}
