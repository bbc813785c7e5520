// The snapshot's warnings and the plan's findings arranged for reading (the page's notices, a
// printout): warnings grouped by code, the largest group first; findings with the fatal ones
// first. Display order only: nothing here decides. No DOM.

/** [{ code, count, items }] of `warnings` ({ code, bucket, key, message }), by count (then first seen). */
export function groupWarnings(warnings) {
  const groups = new Map();
  for (const w of warnings) {
    if (!groups.has(w.code)) groups.set(w.code, { code: w.code, count: 0, items: [] });
    const g = groups.get(w.code);
    g.count++;
    g.items.push(w);
  }
  return [...groups.values()].sort((a, b) => b.count - a.count);
}

const RANK = { fatal: 0, warning: 1 };

/** The findings with fatal ones first, then warnings, then notices (each kept in the core's order). */
export function findingsInOrder(findings) {
  return findings.map((f, i) => [f, i]).sort(([a, i], [b, j]) => (RANK[a.level] ?? 2) - (RANK[b.level] ?? 2) || i - j).map(([f]) => f);
}
