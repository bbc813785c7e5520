// The header: what is shown (job, source, when, the leader's default cap and the release whose
// rules decide, each with where it comes from), the ways to open a snapshot, and a load's progress.
import { el, attrs, button, input } from '../../common/page/dom.js';
import { html, render, nothing } from '../../common/page/lit.js';
import { changed } from '../../common/page/store.js';
import { utc, thousands } from '../../common/shared/format.js';

const CAP_SOURCE = {
  user: 'set in the scenario',
  leader_presence: "the leader's own max_in_flight",
  spate_default: "Spate's default (the leader's own cap is unknown)",
};

/** A time as its date and its clock, each never broken (a line may break between them). */
function whenView(ms) {
  const [date, ...clock] = utc(ms).split(' ');
  return html`<span class="when">${date}</span> <span class="when">${clock.join(' ')}</span>`;
}

/** What is shown: the job, its source, when it was taken and its size. */
function sourceView(state) {
  const i = state.info;
  if (!i) return state.loading ? 'loading…' : 'no snapshot loaded';
  return html`job ${i.job} (${state.source.label}), taken ${whenView(i.taken_at_ms)}; ${thousands(i.members.length)} members, ${thousands(i.splits)} splits`;
}

function capLine(view) {
  return html`<p class="cap-line" title=${view.default_cap_note}><span class="cap-value">Default cap ${view.default_cap}</span><span> — ${
    CAP_SOURCE[view.default_cap_source] || view.default_cap_source}</span>${
    view.default_cap_source === 'spate_default' ? html`<span class="cap-note">. ${view.default_cap_note}</span>` : nothing}</p>`;
}

/** The release whose rules decide, and why: the core's words (`rules_note`). */
function rulesLine(view) {
  return html`<p class="rules-line" data-rules=${view.rules} data-rules-source=${view.rules_source}><span>Rules: ${view.rules_note}</span></p>`;
}

function pasteBox(controller) {
  const box = el('div', undefined, 'paste');
  box.hidden = true;
  const area = attrs(document.createElement('textarea'), { 'aria-label': 'snapshot text', placeholder: 'Paste a snapshot file (spate-planner-snapshot/1) here' });
  const load = button('Load pasted snapshot', async () => {
    if (await controller.loadText(area.value)) box.hidden = true;
  });
  box.append(area, load);
  return box;
}

export function createHeader(ctx) {
  const { controller } = ctx;
  const node = el('div', undefined, 'header');
  const title = el('div', undefined, 'title');
  const source = el('p', '', 'source');
  const cap = el('div', undefined, 'cap');
  // embedded in a console (the `embedded` attribute): the console's own title names it
  if (!ctx.options.embedded) title.append(el('h1', 'spate-planner'));
  title.append(source, cap);

  // a snapshot, or a recording (docs/recording-format.md: a segment, .jsonl or .jsonl.gz), replayed
  const file = input('file', { accept: '.json,application/json,.jsonl,.gz', 'aria-label': 'snapshot file' });
  file.hidden = true;
  file.addEventListener('change', () => {
    const f = file.files[0];
    file.value = '';
    if (f) controller.loadFile(f);
  });
  const paste = pasteBox(controller);
  const load = el('div', undefined, 'load');
  // embedded in a console, which loads what the element shows: only the keyboard help
  if (!ctx.options.embedded) {
    load.append(
      button('Open snapshot…', () => file.click()),
      file,
      button('Paste…', () => { paste.hidden = !paste.hidden; }),
      button('Demo fleet', () => controller.loadDemo(ctx.options.demo)),
    );
  }
  load.append(button('?', () => ctx.help?.open(), 'icon', 'Keyboard shortcuts (?)'));
  const progress = attrs(el('div', undefined, 'progress'), { role: 'progressbar', 'aria-label': 'loading the snapshot', 'aria-valuemin': 0, 'aria-valuemax': 100 });
  progress.hidden = true;
  const fill = el('div', undefined, 'progress-bar');
  const text = el('span');
  progress.append(fill, text);
  // While a live job is followed on a narrow screen the on-call card and the chart come first:
  // the job's details (its source line, default cap, rules: the live bar names the job), the ways
  // to open a snapshot and the notices fold behind this button (style.css shows it only then;
  // fatal findings never fold).
  const fold = attrs(button('Job details and notices', () => {
    const open = fold.getAttribute('aria-expanded') !== 'true';
    fold.setAttribute('aria-expanded', String(open));
    node.closest('.planner')?.toggleAttribute('data-unfolded', open);
  }, 'fold-toggle'), { 'aria-expanded': 'false' });
  const top = el('div', undefined, 'topbar');
  top.append(title, load);
  node.append(top, fold, paste, progress);

  return {
    node,
    update(state, prev) {
      if (changed(prev, state, 'live')) node.closest('.planner')?.toggleAttribute('data-live', Boolean(state.live?.job && !state.live.replay));
      if (changed(prev, state, 'info', 'source', 'loading')) render(sourceView(state), source);
      if (changed(prev, state, 'result')) render(state.result ? html`${capLine(state.result.view)}${rulesLine(state.result.view)}` : nothing, cap);
      if (changed(prev, state, 'loading')) {
        progress.hidden = !state.loading;
        if (state.loading) {
          const pct = Math.round(state.loading.fraction * 100);
          fill.style.width = `${pct}%`;
          progress.setAttribute('aria-valuenow', String(pct));
          text.textContent = state.loading.text;
        }
      }
    },
  };
}
