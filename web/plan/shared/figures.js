// The plan's figures as rows of text, for the details table and the Markdown report. No DOM.
import { humanBytes, exactBytes, ratio, thousands } from '../../common/shared/format.js';

/** [label, text, exact (hover)] per figure. */
export function figureRows(v) {
  const c = v.report.counts;
  const b = v.report.balance;
  const p = v.published;
  const r = v.report;
  return [
    ['members', thousands(r.members.length)],
    ['splits assigned', thousands(c.assigned)],
    ['queued beyond the lanes', thousands(c.queued)],
    ['reserved (withheld)', thousands(c.reserved)],
    ['completed', thousands(c.completed)],
    ['quarantined', thousands(c.quarantined)],
    ['waiting for a spec', thousands(c.waiting_for_spec)],
    ['total weight', humanBytes(b.total), exactBytes(b.total)],
    ['max load', humanBytes(b.max_load), exactBytes(b.max_load)],
    ['mean load', humanBytes(BigInt(Math.round(b.mean_load))), `${b.mean_load.toLocaleString('en')} bytes`],
    ['max / mean', ratio(b.max_over_mean)],
    ['max / lower bound', ratio(b.max_over_bound)],
    ['moves (churn)', thousands(r.churn.moves)],
    ['weight moved', humanBytes(r.churn.weight_moved), exactBytes(r.churn.weight_moved)],
    ['improving moves', thousands(r.improving_moves)],
    ['4096-move bound', r.bound_hit ? (r.improvable ? 'hit, more moves remain' : 'hit') : 'not hit'],
    ['default cap', `${v.default_cap} (${v.default_cap_source.replace('_', ' ')})`, v.default_cap_note],
    ['leader publishes', v.leader_publishes ? 'yes' : 'nothing: the current assignments stand'],
    ['differs from the published assignment', !v.leader_publishes ? '—' : p === null ? 'nothing published' : `${thousands(p.changes)} splits`],
  ];
}
