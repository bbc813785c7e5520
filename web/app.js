// The dashboard's shell: lays out the registered views (shell/page/views.js) in a root (an element
// or a shadow root), feeds them every store change, and hosts the tabs of the detail area.
// It decides nothing and renders no data itself.
import { el, attrs } from './common/page/dom.js';
import { Controller } from './shell/page/controller.js';
import { changed } from './common/page/store.js';
import { viewsAt } from './shell/page/registry.js';
import './shell/page/views.js';

function mount(place, ctx, into) {
  return viewsAt(place).map((v) => {
    const view = v.create(ctx);
    into.append(view.node);
    return view;
  });
}

/**
 * The tab list and panels of the detail area; a tab's view is told when it is shown. A view with
 * visible(state) has its tab only while that is true (Live, while a job is followed); it is
 * selected when it appears unless the person chose a tab already.
 */
/** Scrolls the tab list sideways (never the page) so that `tab` is in view: a narrow list scrolls. */
function keepInList(tab) {
  const list = tab.parentElement;
  const t = tab.getBoundingClientRect();
  const l = list.getBoundingClientRect();
  if (t.left < l.left) list.scrollLeft -= l.left - t.left + 24;
  else if (t.right > l.right) list.scrollLeft += t.right - l.right + 24;
}

function mountTabs(ctx, into) {
  const section = attrs(el('section', undefined, 'tabs'), { 'aria-labelledby': 'tabs-title' });
  const title = attrs(el('h2', 'Details', 'visually-hidden'), { id: 'tabs-title' });
  const list = attrs(el('div', undefined, 'tablist'), { role: 'tablist', 'aria-labelledby': 'tabs-title' });
  section.append(title, list);
  const tabs = viewsAt('tab').map((v) => {
    const view = v.create(ctx);
    const tab = attrs(el('button', v.title, 'tab'), { type: 'button', role: 'tab', id: `tab-${v.id}`, 'aria-controls': `panel-${v.id}`, 'data-tab': v.id });
    const panel = attrs(el('div', undefined, 'tabpanel'), { role: 'tabpanel', id: `panel-${v.id}`, 'aria-labelledby': `tab-${v.id}`, tabindex: '0' });
    // a tab marked `print` is printed whatever tab is shown, under its title (style.css)
    if (v.print) panel.append(el('h2', v.title, 'print-title'));
    if (v.print) panel.dataset.print = 'true';
    panel.append(view.node);
    list.append(tab);
    section.append(panel);
    return { v, view, tab, panel, shown: !view.visible };
  });
  let current = -1;
  let chosen = false;
  const select = (i, focus = false) => {
    current = i;
    tabs.forEach((t, j) => {
      const on = i === j;
      t.tab.setAttribute('aria-selected', String(on));
      t.tab.tabIndex = on ? 0 : -1;
      t.panel.hidden = !on;
      if (on) { t.view.show?.(); keepInList(t.tab); if (focus) t.tab.focus(); } else t.view.hide?.();
    });
  };
  const visible = () => tabs.map((t, i) => i).filter((i) => !tabs[i].tab.hidden);
  tabs.forEach((t, i) => {
    t.tab.addEventListener('click', () => { chosen = true; select(i); });
    t.tab.addEventListener('keydown', (e) => {
      const step = { ArrowRight: 1, ArrowLeft: -1 }[e.key];
      if (!step) return;
      e.preventDefault();
      const vis = visible();
      chosen = true;
      select(vis[(vis.indexOf(i) + step + vis.length) % vis.length], true);
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
  // a tab asked for by an action (the fleet chart's "crash in the Timeline")
  const asked = {
    update(state, prev) {
      const i = state.tab && changed(prev, state, 'tab') ? tabs.findIndex((t) => t.v.id === state.tab.id) : -1;
      if (i < 0 || tabs[i].tab.hidden) return;
      chosen = true;
      select(i, Boolean(state.tab.focus));
    },
  };
  return { views: [...tabs.map((t) => t.view), asked], sync };
}

function dropTarget(node, controller) {
  node.addEventListener('dragover', (e) => { e.preventDefault(); node.classList.add('dragging'); });
  node.addEventListener('dragleave', (e) => { if (e.target === node) node.classList.remove('dragging'); });
  node.addEventListener('drop', (e) => {
    e.preventDefault();
    node.classList.remove('dragging');
    const f = e.dataTransfer?.files?.[0];
    if (f) controller.loadFile(f);
  });
}

export class PlannerApp {
  /** root: an Element or ShadowRoot; host: the element whose theme colours apply. */
  constructor(root, host, options = {}) {
    this.controller = new Controller();
    this.store = this.controller.store;
    this.review = this.controller.review;
    const ctx = { controller: this.controller, review: this.review, options, root, host };
    const app = el('div', undefined, 'planner');
    const layout = el('div', undefined, 'layout');
    const top = el('div', undefined, 'top');
    const main = el('div', undefined, 'main');
    const side = el('div', undefined, 'side');
    const header = [...mount('header', ctx, app), ...mount('notices', ctx, app), ...mount('summary', ctx, top), ...mount('main', ctx, main)];
    const tabs = mountTabs(ctx, main);
    this.syncTabs = tabs.sync;
    this.views = [...header, ...tabs.views, ...mount('side', ctx, side)];
    // the exports section goes last in the main column, after the tabs
    const exports = main.querySelector('.exports');
    if (exports) main.append(exports);
    layout.append(top, main, side);
    app.append(layout);
    dropTarget(app, this.controller);
    root.append(app);
    this.app = app;
    this.store.addEventListener('change', (e) => this.render(e.detail.state, e.detail.prev));
    this.render(this.store.state, null);
  }

  render(state, prev) {
    this.syncTabs(state);
    for (const v of this.views) v.update(state, prev);
    this.app.dataset.ready = String(state.ready);
    this.app.dataset.picking = String(Boolean(state.live?.jobs));
  }

  destroy() {
    for (const v of this.views) v.destroy?.();
    this.controller.close();
  }
}
