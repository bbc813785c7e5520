// The Markdown report for a design review: the figures, the scenario, the heaviest moves.
// Snapshot text goes into code spans with backticks neutralised, so it stays text wherever the
// Markdown is rendered.
import { humanBytes, ratio, reasonText } from './format.js';
import { describe } from './scenario.js';

function code(s) {
  const t = String(s ?? '').replace(/[\r\n]+/g, ' ');
  const ticks = (t.match(/`+/g) || []).reduce((m, x) => Math.max(m, x.length), 0);
  const fence = '`'.repeat(ticks + 1);
  return `${fence} ${t} ${fence}`;
}

export function markdownReport({ info, view, baseline, state, moves, link }) {
  const lines = [];
  lines.push(`# Plan for job ${code(info.job)}`, '');
  lines.push(`Snapshot taken ${new Date(info.takenAtMs).toISOString()} (${code(info.sourceKind)}${info.sourceServer ? ` from ${code(info.sourceServer)}` : ''}); seed ${info.seed}.`);
  if (link) lines.push('', `Link to this view: <${link.replace(/>/g, '%3E')}>`);
  lines.push('', '## Scenario', '');
  if (state.defaultCap != null) lines.push(`- leader default cap: ${state.defaultCap}`);
  if (!state.changes.length) lines.push('- no changes: the baseline plan');
  for (const c of state.changes) lines.push(`- ${code(describe(c))}`);
  const row = (label, pick, fmt = (x) => x) => {
    const a = fmt(pick(view));
    return baseline ? `| ${label} | ${fmt(pick(baseline))} | ${a} |` : `| ${label} | ${a} |`;
  };
  lines.push('', '## Figures', '', baseline ? '| | baseline | what-if |' : '| | plan |', baseline ? '| --- | --- | --- |' : '| --- | --- |');
  lines.push(
    row('members', (v) => v.members.length),
    row('splits assigned', (v) => v.counts.assigned),
    row('queued', (v) => v.counts.queued),
    row('reserved', (v) => v.counts.reserved),
    row('completed', (v) => v.counts.completed),
    row('quarantined', (v) => v.counts.quarantined),
    row('waiting for a spec', (v) => v.counts.waitingForSpec),
    row('total weight', (v) => v.total, humanBytes),
    row('max load', (v) => v.maxLoad, humanBytes),
    row('max / mean', (v) => v.maxOverMean, ratio),
    row('max / lower bound', (v) => v.maxOverBound, ratio),
    row('moves', (v) => v.churnMoves),
    row('weight moved', (v) => v.weightMoved, humanBytes),
    row('improving moves', (v) => v.improvingMoves),
    row('4096-move bound hit', (v) => (v.boundHit ? 'yes' : 'no')),
  );
  lines.push('', '## Members', '', '| member | now | planned | lanes | gained | lost |', '| --- | --- | --- | --- | --- | --- |');
  for (const m of view.members) {
    lines.push(`| ${code(m.name)} | ${humanBytes(m.loadNow)} | ${humanBytes(m.loadPlanned)} | ${m.lanes}/${m.cap}${m.defaultCap ? '*' : ''} | ${m.gained} | ${m.lost} |`);
  }
  lines.push('', `## Moves (${moves.total}${moves.total > moves.rows.length ? `, the ${moves.rows.length} heaviest` : ''})`, '', '| split | weight | from | to | why |', '| --- | --- | --- | --- | --- |');
  for (const m of moves.rows) {
    lines.push(`| ${code(m.split)} | ${humanBytes(m.weight)} | ${m.from ? code(m.from) : '—'} | ${m.to ? code(m.to) : 'queue'} | ${reasonText(m.reason)} |`);
  }
  lines.push('', '_Made by spate-planner: the Spate 0.1 decision core, compiled to WebAssembly._', '');
  return lines.join('\n');
}
