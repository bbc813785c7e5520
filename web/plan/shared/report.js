// The Markdown report for a design review: title, job, snapshot, scenario (changes that no
// longer apply marked), the summary, the figures (baseline and what-if), every member, the
// heaviest moves. Snapshot text goes into code spans with backticks neutralised and `|`
// escaped, so a name stays text inside a table wherever the Markdown is rendered; prose that
// carries snapshot text (findings, the default cap's note) has every punctuation character
// escaped, so no tag, link or emphasis can come from the data. No DOM.
import { humanBytes, ratio, reasonText, utc, thousands, gainRelief } from '../../common/shared/format.js';
import { describe } from '../../common/shared/scenario.js';
import { figureRows } from './figures.js';
import { summarize } from '../../common/shared/summary.js';

/** Text as an inline code span (outside tables). */
export function code(s) {
  const t = String(s ?? '').replace(/[\r\n]+/g, ' ');
  const ticks = (t.match(/`+/g) || []).reduce((m, x) => Math.max(m, x.length), 0);
  const fence = '`'.repeat(ticks + 1);
  return `${fence} ${t} ${fence}`;
}

/** Prose that Markdown shows as it is: every ASCII punctuation character backslash-escaped
 * (so no `<tag>`, `[link](…)`, `&entity;`, emphasis or `|` comes from it), lines joined. */
export function text(s) {
  return String(s ?? '').replace(/[\r\n]+/g, ' ').replace(/[!-/:-@[-`{-~]/g, '\\$&');
}

/** Text as a code span inside a table cell: `|` escaped, so it cannot end the cell. */
export function cell(s) {
  return code(s).replace(/\|/g, '\\|');
}

function scenarioLines(scenario, failures) {
  const failed = new Map(failures.map((f) => [f.index, f]));
  const out = [];
  if (scenario.defaultCap !== null) out.push(`- leader default cap: ${scenario.defaultCap}`);
  if (!scenario.changes.length) out.push('- no changes: the baseline plan');
  scenario.changes.forEach((c, i) => {
    const f = failed.get(i);
    out.push(`- ${code(describe(c))}${f ? ` — **not applied**: ${code(f.message)}` : ''}`);
  });
  return out;
}

function figuresTable(view, baseline) {
  const now = figureRows(view);
  const base = baseline ? figureRows(baseline) : null;
  const out = [base ? '| figure | baseline | what-if |' : '| figure | plan |', base ? '| --- | --- | --- |' : '| --- | --- |'];
  now.forEach(([k, v], i) => out.push(base ? `| ${k} | ${cell(base[i][1])} | ${cell(v)} |` : `| ${k} | ${cell(v)} |`));
  return out;
}

function memberLines(view) {
  const out = ['| member | now | planned | lanes | gained | lost |', '| --- | --- | --- | --- | --- | --- |'];
  for (const m of view.report.members) {
    out.push(`| ${cell(m.name)} | ${humanBytes(m.load_now)} | ${humanBytes(m.load_planned)} | ${m.lanes}/${m.cap}${m.default_cap ? '*' : ''} | ${m.gained} | ${m.lost} |`);
  }
  return out;
}

function moveLines(moves) {
  const out = [`## Moves (${thousands(moves.total)}${moves.total > moves.rows.length ? `, the ${moves.rows.length} heaviest` : ''})`, '',
    '| split | weight | from | to | why | relief |', '| --- | --- | --- | --- | --- | --- |'];
  for (const m of moves.rows) {
    const relief = gainRelief(m.gain, m.weight);
    out.push(`| ${cell(m.split)} | ${humanBytes(m.weight)} | ${m.from ? cell(m.from) : '—'} | ${m.to ? cell(m.to) : 'queue'} | ${reasonText(m.reason)} | ${relief === null ? '' : humanBytes(relief)} |`);
  }
  return out;
}

/**
 * The report: { info, source, result: { view, baseline, failures }, scenario, moves, link,
 * timeline (the Timeline's section, timeline/shared/report.js, or null) }.
 */
export function markdownReport({ info, source, result, scenario, moves, link, timeline = null }) {
  const { view, baseline, failures } = result;
  const s = summarize(view);
  const lines = [`# Plan for job ${code(info.job)}${scenario.changes.length ? ' (what-if)' : ''}`, ''];
  lines.push(`Snapshot ${code(source?.label ?? '')}, taken ${utc(info.taken_at_ms)}; seed ${info.seed}. Default cap ${view.default_cap}: ${text(view.default_cap_note)}.`);
  if (link) lines.push('', `Link to this view: <${link.replace(/>/g, '%3E')}>`);
  if (view.findings.length) lines.push('', '## Findings', '', ...view.findings.map((f) => `- **${f.level}** ${code(f.code)}: ${text(f.message)}`));
  lines.push('', '## Scenario', '', ...scenarioLines(scenario, failures));
  lines.push('', '## Summary', '');
  if (s.worst) lines.push(`- heaviest member now: ${code(s.worst.name)}, ${humanBytes(s.worst.now)} → ${humanBytes(s.worst.planned)}`);
  lines.push(`- max / mean: ${ratio(s.now.maxOverMean)} now → ${ratio(s.planned.maxOverMean)} planned`,
    `- members over the mean: ${s.now.overMean} → ${s.planned.overMean}; at their lane cap: ${s.now.full} → ${s.planned.full}`,
    `- ${thousands(s.moves)} moves, ${humanBytes(s.weightMoved)} moved`);
  lines.push('', '## Figures', '', ...figuresTable(view, baseline));
  lines.push('', '## Members', '', ...memberLines(view));
  lines.push('', ...moveLines(moves));
  if (timeline) lines.push('', timeline);
  lines.push('', '_Made by spate-planner: the Spate decision core, compiled to WebAssembly._', '');
  return lines.join('\n');
}
