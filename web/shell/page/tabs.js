// The detail area's tab list and panels, in the ARIA tab pattern: one tab in the tab order (the
// selected one), ArrowLeft/ArrowRight move to the previous/next tab and Home/End to the first/last,
// each selecting it (the page never scrolls for them), and each panel labelled by its tab. A tab's
// view is told when it is shown. A view with visible(state) has its tab only while that is true
// (Live, while a job is followed); it is selected when it appears unless the person chose a tab.
import { el, attrs } from '../../common/page/dom.js';
import { changed } from '../../common/page/store.js';
import { viewsAt } from './registry.js';

/**
 * Says on the tab list which of its ends has tabs scrolled out of sight (`data-overflow`:
 * start, end, both or none): style.css fades that end, the sign that the row scrolls.
 */
function markOverflow(list) {
  const hidden = list.scrollWidth - list.clientWidth;
  const start = list.scrollLeft > 1;
  const end = hidden - list.scrollLeft > 1;
  const now = start && end ? 'both' : start ? 'start' : end ? 'end' : 'none';
  if (list.dataset.overflow !== now) list.dataset.overflow = now;
}

/** Scrolls the tab list sideways (never the page) so that `tab` is in view: a narrow list scrolls. */
function keepInList(tab) {
  const list = tab.parentElement;
  const t = tab.getBoundingClientRect();
  const l = list.getBoundingClientRect();
  if (t.left < l.left) list.scrollLeft -= l.left - t.left + 24;
  else if (t.right > l.right) list.scrollLeft += t.right - l.right + 24;
}

/** The index among `count` visible tabs that `key` moves to from `at`, or null for another key. */
export function tabKeyTarget(key, at, count) {
  switch (key) {
    case 'ArrowRight': return (at + 1) % count;
    case 'ArrowLeft': return (at - 1 + count) % count;
    case 'Home': return 0;
    case 'End': return count - 1;
    default: return null;
  }
}

function tabOf(ctx, v) {
  const view = v.create(ctx);
  const tab = attrs(el('button', v.title, 'tab'), { type: 'button', role: 'tab', id: `tab-${v.id}`, 'aria-controls': `panel-${v.id}`, 'data-tab': v.id });
  const panel = attrs(el('div', undefined, 'tabpanel'), { role: 'tabpanel', id: `panel-${v.id}`, 'aria-labelledby': `tab-${v.id}`, tabindex: '0' });
  // a tab marked `print` is printed whatever tab is shown, under its title (style.css)
  if (v.print) panel.append(el('h2', v.title, 'print-title'));
  if (v.print) panel.dataset.print = 'true';
  panel.append(view.node);
  return { v, view, tab, panel, shown: !view.visible };
}

/** Mounts the tabs in `into`; returns { views (theirs and the one that shows asked-for tabs), sync(state), node }. */
export function mountTabs(ctx, into) {
  const section = attrs(el('section', undefined, 'tabs'), { 'aria-labelledby': 'tabs-title', id: 'details' });
  const title = attrs(el('h2', 'Details', 'visually-hidden'), { id: 'tabs-title', tabindex: '-1' });
  const list = attrs(el('div', undefined, 'tablist'), { role: 'tablist', 'aria-labelledby': 'tabs-title' });
  section.append(title, list);
  const tabs = viewsAt('tab').map((v) => tabOf(ctx, v));
  for (const t of tabs) { list.append(t.tab); section.append(t.panel); }
  list.addEventListener('scroll', () => markOverflow(list), { passive: true });
  new ResizeObserver(() => markOverflow(list)).observe(list);
  let current = -1;
  let chosen = false;
  // The selected tab is brought into the list's view, and its ends marked, in the next animation
  // frame, when the browser lays the page out anyway: measuring at once made it lay out the whole
  // page then, in the middle of the first load (95 ms at 20,000 splits).
  let inView = null;
  const keepInView = (tab) => {
    if (!inView) requestAnimationFrame(() => { keepInList(inView); markOverflow(list); inView = null; });
    inView = tab;
  };
  const select = (i, focus = false) => {
    current = i;
    tabs.forEach((t, j) => {
      const on = i === j;
      t.tab.setAttribute('aria-selected', String(on));
      t.tab.tabIndex = on ? 0 : -1;
      t.panel.hidden = !on;
      if (on) { t.view.show?.(); keepInView(t.tab); if (focus) t.tab.focus(); } else t.view.hide?.();
    });
  };
  const visible = () => tabs.map((t, i) => i).filter((i) => !tabs[i].tab.hidden);
  tabs.forEach((t, i) => {
    // a tab chosen goes through the store (so the link names it), then `asked` selects it
    t.tab.addEventListener('click', () => ctx.controller.showTab(t.v.id));
    t.tab.addEventListener('keydown', (e) => {
      const vis = visible();
      const to = tabKeyTarget(e.key, vis.indexOf(i), vis.length);
      if (to === null || e.altKey || e.ctrlKey || e.metaKey) return;
      e.preventDefault(); // Home and End would scroll the page
      ctx.controller.showTab(tabs[vis[to]].v.id, true);
    });
  });
  /** Shows and hides the tabs whose views say so. */
  const sync = (state) => {
    tabs.forEach((t, i) => {
      if (!t.view.visible) return;
      const on = t.view.visible(state);
      t.tab.hidden = !on;
      if (on && !t.shown && !chosen) select(i);
      t.shown = on;
    });
    if (current < 0 || tabs[current].tab.hidden) select(visible()[0] ?? 0);
  };
  into.append(section);
  // a tab asked for by an action (the fleet chart's "crash in the Timeline", a link's tab)
  const asked = {
    update(state, prev) {
      const i = state.tab && changed(prev, state, 'tab') ? tabs.findIndex((t) => t.v.id === state.tab.id) : -1;
      if (i < 0 || tabs[i].tab.hidden) return;
      chosen = true;
      select(i, Boolean(state.tab.focus));
    },
  };
  /** The id of the tab shown. */
  const shownId = () => tabs[current]?.v.id ?? null;
  return { views: [...tabs.map((t) => t.view), asked], sync, shownId, node: section, title };
}
