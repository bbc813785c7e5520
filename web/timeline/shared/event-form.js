// What the Timeline's "add an event" form stands for: the kinds of event, the inputs each uses,
// and the script events a filled form makes (no DOM here: the page's form and the tests use it).
import { freshNames, rollingRestart } from './script.js';

export const KINDS = [
  ['crash', 'crash a member'],
  ['stop', 'stop a member gracefully'],
  ['crash_leader', 'crash the leader'],
  ['start_new', 'start new members'],
  ['restart', 'restart a member (same id)'],
  ['rolling', 'rolling restart'],
  ['set_cap', "change a member's lane cap"],
];
/** The inputs each kind of event uses. */
export const NEEDS = {
  crash: ['member'], stop: ['member'], crash_leader: [], start_new: ['count', 'cap'], restart: ['member', 'cap'],
  rolling: ['count', 'every', 'downtime', 'cap'], set_cap: ['member', 'cap'],
};

function formError(message) {
  return Object.assign(new Error(message), { code: 'invalid_event' });
}

/** A whole number of 1 … max from an input, else an error naming the input. */
function count(text, what, max = 1000) {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > max) throw formError(`${what}: a whole number from 1 to ${max}`);
  return n;
}

/** Seconds as integer ms (anything else goes to the core, which says what is wrong). */
function ms(text) {
  return Math.round(Number(String(text).trim() || 0) * 1000);
}

/**
 * The script events a filled form stands for. A restart without a cap keeps the member's own
 * (its presence's max_in_flight, `capOf`), as a restarted process would; new members take the
 * script's default.
 */
export function eventsOf(kind, v, { members, taken, capOf = () => null }) {
  const at = ms(v.at);
  const cap = v.cap === '' ? undefined : Number(v.cap);
  const own = (member) => (cap !== undefined ? { cap } : capOf(member) ? { cap: capOf(member) } : {});
  if (NEEDS[kind].includes('member') && !v.member) throw formError('pick a member');
  switch (kind) {
    case 'crash': case 'stop': return [{ at_ms: at, op: kind, member: v.member }];
    case 'crash_leader': return [{ at_ms: at, op: 'crash_leader' }];
    case 'start_new':
      return freshNames(count(v.count, 'how many'), 'new-', taken).map((member) => ({ at_ms: at, op: 'start', member, ...(cap === undefined ? {} : { cap }) }));
    case 'restart': return [{ at_ms: at, op: 'start', member: v.member, ...own(v.member) }];
    case 'rolling': {
      const n = count(v.count, 'how many', members.length);
      return rollingRestart(members.slice(0, n), at, ms(v.every), ms(v.downtime)).map((e) => (e.op === 'start' ? { ...e, ...own(e.member) } : e));
    }
    case 'set_cap': return [{ at_ms: at, op: 'set_cap', member: v.member, cap: cap ?? 0 }];
    default: throw formError(`unknown kind of event ${kind}`);
  }
}

/** The index of the event a script error names (`events[3].member`), or -1. */
export function eventIndexOf(path) {
  const m = /^events\[(\d+)\]/.exec(path || '');
  return m ? Number(m[1]) : -1;
}
