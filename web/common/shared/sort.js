// Orders for display (the decisions are the core's; these only arrange rows for people).

const RUNS = /(\d+)|(\D+)/g;

function runs(s) {
  return String(s).match(RUNS) || [];
}

/** Natural order: worker-2 before worker-10 before worker-100; then plain code-unit order. */
export function naturalCompare(a, b) {
  const x = runs(a);
  const y = runs(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const p = x[i];
    const q = y[i];
    if (p === q) continue;
    const dp = /^\d/.test(p);
    const dq = /^\d/.test(q);
    if (dp && dq) {
      const d = BigInt(p) - BigInt(q);
      if (d !== 0n) return d < 0n ? -1 : 1;
      if (p.length !== q.length) return p.length - q.length; // 007 after 7
    } else {
      return p < q ? -1 : 1;
    }
  }
  if (x.length !== y.length) return x.length - y.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

function cmpBig(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

function abs(x) {
  return x < 0n ? -x : x;
}

/** Comparators of chart rows ({ name, now, planned } with bigint loads). */
export const ORDERS = {
  name: { label: 'name', cmp: (a, b) => naturalCompare(a.name, b.name) },
  now: { label: 'load now', cmp: (a, b) => cmpBig(b.now, a.now) || naturalCompare(a.name, b.name) },
  planned: { label: 'planned load', cmp: (a, b) => cmpBig(b.planned, a.planned) || naturalCompare(a.name, b.name) },
  change: {
    label: 'size of change',
    cmp: (a, b) => cmpBig(abs(b.planned - b.now), abs(a.planned - a.now)) || naturalCompare(a.name, b.name),
  },
};

/** The rows in `order` (a key of ORDERS; unknown: name). Returns a new array. */
export function sortRows(rows, order) {
  return rows.slice().sort((ORDERS[order] || ORDERS.name).cmp);
}
