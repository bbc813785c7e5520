// The Timeline's script as JSON: configuration A's script and B's settings, to copy to
// `spate-planner simulate` or to paste one in; applying replaces the timeline (the core checks
// it when it runs). Each configuration's script downloads as a file, and the commands that run
// them copy.
import { el, attrs, button, field, download } from '../../common/page/dom.js';
import { scriptText, overridesText, parseScript, parseOverrides, withOverrides } from '../shared/script.js';
import { command, snapshotArg, stemOf } from '../../common/shared/cli.js';
import { copyText } from '../../common/page/copy.js';
import { setValue } from './config.js';

/** The scripts of A (and B, with its settings put in): [{ name, text, command }]. */
function scriptFiles(state) {
  const t = state.timeline;
  const stem = `${stemOf(state.info?.job)}-timeline`;
  const files = [{ name: `${stem}.json`, text: scriptText(t.script) }];
  if (t.b) files.push({ name: `${stem}-b.json`, text: scriptText(withOverrides(t.script, t.b)) });
  return files.map((f) => ({ ...f, command: command('simulate', snapshotArg(state.source), '--script', f.name, '--json') }));
}

/** The buttons beside the script box: each script as a file, and the commands that run them. */
function scriptTools(controller) {
  const row = el('div', undefined, 'row tl-files');
  const b = button('Script JSON (B)', () => { const f = scriptFiles(controller.state)[1]; if (f) download(f.name, 'application/json', `${f.text}\n`); });
  row.append(
    button('Script JSON (A)', () => { const f = scriptFiles(controller.state)[0]; download(f.name, 'application/json', `${f.text}\n`); }),
    b,
    button('Copy the commands', () => {
      const text = scriptFiles(controller.state).map((f) => f.command).join('\n');
      copyText(controller, text, `Copied: ${text.replace('\n', '; ')}`);
    }, undefined, 'Copy the commands that run these scripts on the command line'),
  );
  return { node: row, update(t) { b.hidden = !t.b; } };
}

/** The script box: { node, update(timeline) }. */
export function createScriptBox(controller) {
  const box = el('details', undefined, 'tl-json');
  box.append(el('summary', 'Script (JSON): the same file runs on the command line'));
  box.append(el('p', 'spate-planner simulate job.json --script script.json --json (and --config rebalance_delay_ms=0 for B, say) prints the same figures.', 'hint'));
  const a = attrs(document.createElement('textarea'), { 'aria-label': 'script of configuration A (JSON)', spellcheck: 'false', rows: 8 });
  const b = attrs(document.createElement('textarea'), { 'aria-label': "configuration B's settings (JSON; empty: no comparison)", spellcheck: 'false', rows: 2 });
  const error = attrs(el('p', '', 'form-error'), { role: 'alert' });
  // text typed and not applied yet stays, whatever the store says meanwhile (a run, a live frame)
  const edited = new Set();
  const pending = el('p', '', 'hint tl-json-pending');
  const said = () => { pending.textContent = edited.size ? 'Edited: Apply the script to run it.' : ''; };
  for (const t of [a, b]) t.addEventListener('input', () => { edited.add(t); said(); });
  const apply = button('Apply the script', () => {
    error.textContent = '';
    try {
      const script = parseScript(a.value);
      const over = b.value.trim() ? parseOverrides(b.value) : null;
      edited.clear();
      said();
      controller.setTimeline({ script, b: over }, 'Timeline: script applied.');
    } catch (e) {
      error.textContent = `${e.message} (${e.code}${e.path ? ` at ${e.path}` : ''})`;
    }
  });
  const tools = scriptTools(controller);
  box.append(field('A: the script', a, 'field tl-wide'), field("B: settings that differ from A's", b, 'field tl-wide'), apply, pending, error, tools.node);
  return {
    node: box,
    update(t) {
      tools.update(t);
      if (!edited.has(a)) setValue(a, scriptText(t.script));
      if (!edited.has(b)) setValue(b, t.b ? overridesText(t.b) : '');
    },
  };
}

