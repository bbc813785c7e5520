// The glyph drawn for each kind of the Timeline's event marks (the marks and their sentences are
// the simulator's: SimRun.summary).
export const MARK_GLYPH = {
  crash: '✕', stop: '■', start: '▲', cap: '◆', election: '★', splits: '+', fail: '!', ignored: '?', parked: '⊘', recovered: '✓',
};
