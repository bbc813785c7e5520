// The Timeline's event marks in words: the glyph drawn for each kind and one sentence per mark
// (the chart's titles and list, the report's Timeline section).
import { clock } from './script.js';

export const MARK_GLYPH = {
  crash: '✕', stop: '■', start: '▲', cap: '◆', election: '★', splits: '+', fail: '!', ignored: '?', recovered: '✓',
};
export const MARK_WORDS = {
  crash: 'crashed', stop: 'stopped gracefully', start: 'started', cap: 'lane cap changed', election: 'leader elected',
  splits: 'splits added', fail: 'split failed', ignored: 'event ignored (nothing to act on)', recovered: 'recovered: every split the events took runs again',
};

/** One sentence per mark, for titles and lists: `0:45 crashed: worker-03`. */
export function markText(m) {
  const who = m.who.length > 3 ? `${m.who.slice(0, 3).join(', ')} and ${m.who.length - 3} more` : m.who.join(', ');
  return `${clock(m.t)} ${MARK_WORDS[m.kind] ?? m.kind}${who ? `: ${who}` : ''}`;
}
