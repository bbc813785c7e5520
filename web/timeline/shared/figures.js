// The simulation's headline figures of configurations A and B and their difference B − A, as
// cells: the simulator writes every value, difference and word (`figuresTable`, the rows of
// `spate-planner simulate --compare --json`'s `figures_table`); this only picks the cells of a
// row. No DOM.

/**
 * The cells of the simulator's rows: { key, label, help, a, b, diff (texts), rawA, rawB (exact
 * decimal strings, null: no value), changed }; b and diff are null without configuration B.
 */
export function figureCells(rows) {
  return rows.map((r) => ({
    key: r.key, label: r.label, help: r.help,
    a: r.a_text, b: r.b_text, diff: r.diff_text,
    rawA: r.a, rawB: r.b, changed: r.changed,
  }));
}
