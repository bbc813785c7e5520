// The Markdown report's Timeline section: the script (configuration A) and B's settings, both
// configurations' figures with the difference, and the charts as SVG images (data URIs). No DOM:
// the images come in as SVG text.
import { scriptText, overridesText, configNames, duration, effective, clock } from './script.js';
import { figureCells } from './figures.js';
import { markText } from './marks.js';

/** A fenced code block that no backtick run inside `text` can close. */
export function fenced(text, lang = '') {
  const longest = (String(text).match(/`+/g) || []).reduce((m, x) => Math.max(m, x.length), 0);
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return [`${fence}${lang}`, String(text), fence];
}

/** Text that Markdown shows as it is (its punctuation escaped). */
function plain(s) {
  return String(s).replace(/[\\`*_[\]<>|#]/g, '\\$&').replace(/[\r\n]+/g, ' ');
}

function pipeSafe(s) {
  return String(s).replace(/\|/g, '\\|').replace(/[\r\n]+/g, ' ');
}

/** UTF-8 text as base64 (for a data URI). */
export function base64(text) {
  const bytes = new TextEncoder().encode(text);
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

function figuresLines(run, names) {
  const rows = figureCells(run.table);
  if (!run.b) return ['| figure | value |', '| --- | --- |', ...rows.map((r) => `| ${r.label} | ${r.a} |`)];
  return [`| figure | ${pipeSafe(names.A)} | ${pipeSafe(names.B)} | B − A |`, '| --- | --- | --- | --- |',
    ...rows.map((r) => `| ${r.label} | ${r.a} | ${r.b} | ${r.diff} |`)];
}

/**
 * The section: { timeline (the script state), run (its run: done, error, or null), defaults
 * (the simulator's defaults for the snapshot, Planner.simDefaults),
 * images: [{ which, svg (text), range ([from, to] ms shown, or none: the whole run) }] }.
 */
export function timelineSection({ timeline, run, defaults, images = [] }) {
  const names = configNames(timeline);
  const until = effective(timeline.script, 'until_ms', defaults);
  const lines = ['## Timeline', '',
    `What the timing simulator (\`spate-planner simulate\`) replays on this snapshot: ${duration(until)} of heartbeats, lease expiry, the rebalance delay, elections, claims and drains for the events below.`,
    '', '### Script', '', ...fenced(scriptText(timeline.script), 'json')];
  if (timeline.b) lines.push('', `Configuration B runs the same script with: \`${overridesText(timeline.b)}\` (${names.B.slice(3)}).`);
  if (!run || run.status === 'running') {
    lines.push('', '_Not simulated in the page: run `spate-planner simulate SNAPSHOT --script script.json`._', '');
    return lines.join('\n');
  }
  if (run.status === 'error') {
    const e = run.error;
    lines.push('', `**Configuration ${e.which} could not be simulated:** ${plain(e.message)} (code \`${e.code}\`${e.path ? `, at \`${e.path}\`` : ''}).`, '');
    return lines.join('\n');
  }
  lines.push('', '### Figures', '');
  for (const [which, model] of [['A', run.a], ...(run.b ? [['B', run.b]] : [])]) {
    if (model.rules?.note) lines.push(`${run.b ? `${which}: ` : ''}timing and decisions of ${plain(model.rules.note)}.`, '');
  }
  lines.push(...figuresLines(run, names));
  for (const img of images) {
    const span = img.range ? `, ${clock(img.range[0])} to ${clock(img.range[1])}` : '';
    lines.push('', `![${plain(names[img.which])}: each member's load over time and the idle work${span}](data:image/svg+xml;base64,${base64(img.svg)})`);
  }
  const marks = run.a.marks.slice(0, 40).map((m) => `- ${plain(markText(m))}`);
  if (marks.length) lines.push('', `Events of A${run.a.marks.length > 40 ? ' (the first 40)' : ''}:`, '', ...marks);
  lines.push('');
  return lines.join('\n');
}
