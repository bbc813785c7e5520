// The Timeline's script as JSON: configuration A's script and B's settings, to copy to
// `spate-planner simulate` or to paste one in; applying replaces the timeline (the core checks
// it when it runs).
import { el, attrs, button, field } from '../../common/page/dom.js';
import { scriptText, overridesText, parseScript, parseOverrides } from '../shared/script.js';
import { setValue } from './config.js';

/** The script box: { node, update(timeline) }. */
export function createScriptBox(controller) {
  const box = el('details', undefined, 'tl-json');
  box.append(el('summary', 'Script (JSON): the same file runs on the command line'));
  box.append(el('p', 'spate-planner simulate job.json --script script.json --json (and --config rebalance_delay_ms=0 for B, say) prints the same figures.', 'hint'));
  const a = attrs(document.createElement('textarea'), { 'aria-label': 'script of configuration A (JSON)', spellcheck: 'false', rows: 8 });
  const b = attrs(document.createElement('textarea'), { 'aria-label': "configuration B's settings (JSON; empty: no comparison)", spellcheck: 'false', rows: 2 });
  const error = attrs(el('p', '', 'form-error'), { role: 'alert' });
  const apply = button('Apply the script', () => {
    error.textContent = '';
    try {
      const script = parseScript(a.value);
      const over = b.value.trim() ? parseOverrides(b.value) : null;
      controller.setTimeline({ script, b: over }, 'Timeline: script applied.');
    } catch (e) {
      error.textContent = `${e.message} (${e.code}${e.path ? ` at ${e.path}` : ''})`;
    }
  });
  box.append(field('A: the script', a, 'field tl-wide'), field("B: settings that differ from A's", b, 'field tl-wide'), apply, error);
  return {
    node: box,
    update(t) {
      setValue(a, scriptText(t.script));
      setValue(b, t.b ? overridesText(t.b) : '');
    },
  };
}

