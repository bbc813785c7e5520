// Splits: search by id (substring) or by owner (exact name); the chart's chosen member fills
// in the owner search. The matches are a lit-html table keyed by split id: searched again (a new
// plan, a live frame), a split still matching keeps its row, and what is selected in it stays.
import { el, input, scrollArea } from '../../common/page/dom.js';
import { render } from '../../common/page/lit.js';
import { dataTable, cut } from '../../common/page/table.js';
import { changed } from '../../common/page/store.js';
import { humanBytes, exactBytes, seconds, thousands } from '../../common/shared/format.js';
import { focusChip, errorReporter } from '../../common/page/focus-chip.js';
import { csvButton, csvRow } from '../../common/page/csv.js';

const LIMIT = 200;
const HEADERS = ['split', 'status', 'owner', 'lease', 'epoch', 'attempts', 'weight', 'planned'];

function status(s) {
  return `${s.status}${s.completed && s.status !== 'completed' ? ', completed' : ''}${s.reserved ? ', reserved' : ''}`;
}

function weight(s) {
  return s.weight === null ? 'no spec' : cut(humanBytes(s.weight), exactBytes(s.weight));
}

function rowOf(s) {
  const lease = s.lease_owner ? `${s.lease_owner} (${seconds(s.lease_left_ms ?? '0')} left)` : '—';
  return [cut(s.id), status(s), s.owner ?? '—', lease, thousands(s.epoch), s.attempts, weight(s), s.planned ?? '—'];
}

export function createSplits(ctx) {
  const { controller } = ctx;
  const node = el('div', undefined, 'splits');
  const q = input('search', { placeholder: 'split id contains…, or an owner\'s exact name', 'aria-label': 'search splits' });
  const chip = focusChip(controller);
  const host = scrollArea('matching splits');
  const count = el('p', '', 'hint count');
  const report = errorReporter(controller, 'The split search failed');
  // every split, whatever the search: the core's table (`spate-planner plan --csv splits`)
  const csv = csvRow(csvButton(controller, 'splits', () => controller.ask('planCsv', { table: 'splits' }), 'every split'));
  node.append(chip.node, q, host, count, csv);
  let seq = 0;

  async function search(query) {
    const mine = ++seq;
    try {
      const rows = await controller.ask('findSplits', { query, limit: LIMIT });
      if (mine !== seq) return;
      render(dataTable({ headers: HEADERS, rows, key: (r) => r.id, cellsOf: rowOf }), host);
      count.textContent = rows.length === LIMIT ? `the first ${LIMIT} matches` : `${rows.length} match${rows.length === 1 ? '' : 'es'}`;
    } catch (e) {
      if (mine === seq) report(e);
    }
  }

  let timer = 0;
  q.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => search(q.value), 120);
  });

  let shown = false;
  let stale = true;
  return {
    node,
    /** Called when the tab is shown: the search runs only when someone looks. */
    show() { shown = true; if (stale && controller.state.result) { stale = false; search(q.value); } },
    hide() { shown = false; },
    update(state, prev) {
      chip.update(state);
      if (changed(prev, state, 'focus') && state.focus) q.value = state.focus;
      if (changed(prev, state, 'focus') && !state.focus && prev?.focus === q.value) q.value = '';
      if (changed(prev, state, 'result', 'focus') && state.result) {
        stale = !shown;
        if (shown) search(q.value);
      }
    },
  };
}
