// Moves: every split that changes hands, why (the core's words for each reason, the plan
// document's `reasons`), and for improving moves what they take off the heavier member (the
// core's `relief`). Sorted and filtered in the worker; filtered to the chart's chosen member.
import { el, input } from '../../common/page/dom.js';
import { changed } from '../../common/page/store.js';
import { VirtualTable } from './virtual-table.js';
import { humanBytes, exactBytes, thousands } from '../../common/shared/format.js';
import { focusChip, errorReporter } from '../../common/page/focus-chip.js';
import { csvButton, csvRow } from '../../common/page/csv.js';

function reliefCell(m) {
  if (m.relief === null || m.relief === undefined) return '';
  return { text: humanBytes(m.relief), title: `takes ${exactBytes(m.relief)} off the heavier member (gain ${thousands(m.gain)} byte²)` };
}

/** The columns; `reasonOf(code)`: the core's { words, help } of a reason. */
function columns(reasonOf) {
  return [
    { key: 'split', label: 'split', render: (m) => m.split },
    { key: 'weight', label: 'weight', render: (m) => ({ text: humanBytes(m.weight), title: exactBytes(m.weight) }) },
    { key: 'from', label: 'from', render: (m) => m.from ?? '(nobody)' },
    { key: 'to', label: 'to', render: (m) => m.to ?? '(queue)' },
    { key: 'reason', label: 'why', render: (m) => { const r = reasonOf(m.reason); return { text: r?.words ?? m.reason, title: r?.help ?? '' }; } },
    { key: 'relief', label: 'relief', help: 'For improving moves: how much the move takes off the heavier of its two members (hover a cell for the exact gain).', render: reliefCell },
  ];
}

export function createMoves(ctx) {
  const { controller } = ctx;
  const node = el('div', undefined, 'moves');
  const filter = input('search', { placeholder: 'filter by split, member or reason', 'aria-label': 'filter moves' });
  const chip = focusChip(controller);
  const report = errorReporter(controller, 'The moves could not be shown');
  const reasonOf = (code) => controller.state.result?.view.reasons?.find((r) => r.reason === code);
  const table = new VirtualTable({
    label: 'moves',
    columns: columns(reasonOf),
    initialSort: { key: 'weight', desc: true },
    onError: report,
    fetch: (q) => {
      const s = controller.state;
      if (!s.result) return Promise.resolve({ total: 0, rows: [] });
      return controller.ask('moves', { ...q, filter: filter.value, member: s.focus });
    },
  });
  let timer = 0;
  filter.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => table.refresh(true), 120);
  });
  // every move, whatever the filter: the core's table (`spate-planner plan --csv moves`)
  const csv = csvRow(csvButton(controller, 'moves', () => controller.ask('planCsv', { table: 'moves' }), 'every move'));
  node.append(chip.node, filter, table.node, csv);
  return {
    node,
    update(state, prev) {
      chip.update(state);
      // a live job's next frame keeps the place in the table; anything else starts at the top
      const nextFrame = prev?.live && state.live && prev.info?.job === state.info?.job && prev.focus === state.focus;
      if (changed(prev, state, 'result', 'focus')) table.refresh(!nextFrame);
    },
  };
}
