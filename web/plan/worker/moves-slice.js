// Sorted, filtered slices of a plan's moves, for the virtual table (run in the worker, where
// the moves stay). Display order only: the decisions are the core's.
import { naturalCompare } from '../../common/shared/sort.js';

const REASONS = ['unowned', 'owner_gone', 'over_cap', 'improve', 'queued', 'lease_not_current', 'previous', 'record_owner'];

/** Exact comparison of decimal u64/u128 strings. */
export function cmpDecimal(a, b) {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

function cmpName(a, b) {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  return naturalCompare(a, b);
}

const SORTS = {
  split: (a, b) => naturalCompare(a.split, b.split),
  weight: (a, b) => cmpDecimal(a.weight, b.weight) || naturalCompare(a.split, b.split),
  from: (a, b) => cmpName(a.from, b.from) || naturalCompare(a.split, b.split),
  to: (a, b) => cmpName(a.to, b.to) || naturalCompare(a.split, b.split),
  reason: (a, b) => REASONS.indexOf(a.reason) - REASONS.indexOf(b.reason) || naturalCompare(a.split, b.split),
  relief: (a, b) => cmpDecimal(a.relief || '0', b.relief || '0') || naturalCompare(a.split, b.split),
};

/** `words`: the core's words of each reason (the plan document's `reasons`), matched too. */
function matches(m, f, member, words) {
  if (member && m.from !== member && m.to !== member) return false;
  if (!f) return true;
  return m.split.toLowerCase().includes(f) || (m.from || '').toLowerCase().includes(f)
    || (m.to || '').toLowerCase().includes(f) || m.reason.includes(f) || (words[m.reason] || '').toLowerCase().includes(f);
}

let memo = { moves: null, key: '', rows: [] };

/**
 * { total, offset, rows } of `moves` sorted by `sort` (desc or not), filtered by `filter`
 * (substring of split, member, or reason: its code or the core's words of it, `reasons`) and
 * `member` (from or to it).
 */
export function movesSlice(moves, { sort = 'weight', desc = true, filter = '', member = null, offset = 0, limit = 100, reasons = [] }) {
  const key = `${sort}|${desc}|${filter}|${member}`;
  if (memo.moves !== moves || memo.key !== key) {
    const f = filter.trim().toLowerCase();
    const words = Object.fromEntries(reasons.map((r) => [r.reason, r.words]));
    const rows = moves.filter((m) => matches(m, f, member, words));
    const cmp = SORTS[sort] || SORTS.weight;
    rows.sort(desc ? (a, b) => cmp(b, a) : cmp);
    memo = { moves, key, rows };
  }
  return { total: memo.rows.length, offset, rows: memo.rows.slice(offset, offset + limit) };
}
