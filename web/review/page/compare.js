// Compare: the snapshot shown ("after") against an earlier one ("before"), opened here (file
// pick or drop on this panel) or kept from the page (the snapshot shown becomes "before", and
// the next one opened is compared with it). The comparison is the core's (review/page/actions.js),
// drawn in place (lit-html): a live frame or a new plan keeps the members' sort and the focus.
import { el, attrs, button, input } from '../../common/page/dom.js';
import { changed } from '../../common/page/store.js';
import { utc, thousands } from '../../common/shared/format.js';
import { comparisonIsCurrent } from './actions.js';
import { comparisonTemplate } from './compare-result.js';
import { html, render, nothing } from '../../common/page/lit.js';
import { sortState } from '../../common/page/sortable.js';
import { csvButton, csvRow } from '../../common/page/csv.js';

function beforeText(state) {
  const b = state.before;
  const asked = state.linkBefore;
  if (!b && asked) return `The link compared this snapshot with an earlier one (${asked.id || asked.url}) that this page cannot read again by itself: open that snapshot (Open earlier snapshot… or drop it here) to see the comparison.`;
  if (!b) return 'No earlier snapshot yet.';
  const what = `${b.label}: job ${b.info.job}, taken ${utc(b.info.taken_at_ms)}; ${thousands(b.info.members.length)} members, ${thousands(b.info.splits)} splits`;
  if (b.kept && b.generation === state.generation) return `Kept as "before": ${what}. Now open the later snapshot (Open snapshot… at the top, or drop it on the page): it is compared with this one.`;
  return `Before: ${what}.`;
}

/** A panel that takes a dropped file as the earlier snapshot (not as the page's). */
function dropZone(onFile) {
  const zone = el('div', undefined, 'dropzone');
  zone.append(el('span', '…or drop the earlier snapshot file here.'));
  const stop = (e) => { e.preventDefault(); e.stopPropagation(); };
  zone.addEventListener('dragover', (e) => { stop(e); zone.classList.add('dragging'); });
  zone.addEventListener('dragleave', () => zone.classList.remove('dragging'));
  zone.addEventListener('drop', (e) => {
    stop(e);
    zone.classList.remove('dragging');
    const f = e.dataTransfer?.files?.[0];
    if (f) onFile(f);
  });
  return zone;
}

export function createCompare(ctx) {
  const { controller, review } = ctx;
  const node = attrs(el('div', undefined, 'compare'), { 'data-has-result': 'false' });
  // a file input made for each pick and never added to the page: the header's stays the page's
  // only one
  const pick = () => {
    const file = input('file', { accept: '.json,application/json', 'aria-label': 'earlier snapshot file' });
    file.addEventListener('change', () => { if (file.files[0]) review.loadBeforeFile(file.files[0]); });
    file.click();
  };
  const keep = button('Keep this snapshot as "before"', () => review.run(review.keepBefore(), 'The snapshot shown could not be kept as the earlier one'));
  const forget = button('Forget "before"', () => review.run(review.forgetBefore(), 'The earlier snapshot could not be forgotten'));
  const tools = el('div', undefined, 'row compare-tools');
  tools.append(button('Open earlier snapshot…', pick), keep, forget);
  const progress = attrs(el('div', undefined, 'progress'), { role: 'progressbar', 'aria-label': 'loading the earlier snapshot', 'aria-valuemin': 0, 'aria-valuemax': 100 });
  const fill = el('div', undefined, 'progress-bar');
  const progressText = el('span');
  progress.append(fill, progressText);
  progress.hidden = true;
  const line = attrs(el('p', '', 'before-line'), { role: 'status' });
  const result = el('div', undefined, 'compare-result');
  node.append(
    el('p', 'Compare the snapshot shown ("after") with an earlier one ("before"): each member’s load, the splits that changed owner, members that came and went, caps that changed, the figures side by side, and whether the later published assignment is what the planner decided from the earlier snapshot.', 'hint'),
    tools, dropZone((f) => review.loadBeforeFile(f)), progress, line, result,
  );

  // the comparison's tables, the core's (`spate-planner diff --csv members|owners`)
  const csvOf = (table) => () => controller.ask('compareCsv', { before: controller.state.before.id, table });
  const csv = csvRow(csvButton(controller, 'compare-members', csvOf('members'), 'members before and after'),
    csvButton(controller, 'compare-owners', csvOf('owners'), 'splits that changed owner'));

  function loading(state) {
    const l = state.beforeLoading;
    progress.hidden = !l;
    if (!l) return;
    const pct = Math.round(l.fraction * 100);
    fill.style.width = `${pct}%`;
    progress.setAttribute('aria-valuenow', String(pct));
    progressText.textContent = l.text;
  }

  // the members table's sort, kept while comparisons are drawn again (a live frame, a new plan)
  const sort = sortState();

  function draw(state) {
    line.textContent = beforeText(state);
    forget.disabled = !state.before;
    keep.disabled = !state.info || (state.before?.kept && state.before.generation === state.generation);
    const current = comparisonIsCurrent(state);
    node.dataset.hasResult = String(current);
    const again = () => draw(controller.state);
    render(current ? html`${comparisonTemplate(state.comparison.diff, { before: state.before.label, after: state.source.label }, sort, again)}${csv}` : nothing, result);
  }

  return {
    node,
    update(state, prev) {
      if (changed(prev, state, 'beforeLoading')) loading(state);
      if (changed(prev, state, 'before', 'comparison', 'generation', 'info', 'linkBefore')) draw(state);
    },
  };
}
