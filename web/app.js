// The dashboard's shell: lays out the registered views (shell/page/views.js) in a root (an element
// or a shadow root), feeds them every store change, and hosts the tabs of the detail area.
// It decides nothing and renders no data itself.
import { el } from './common/page/dom.js';
import { Controller } from './shell/page/controller.js';
import { viewsAt } from './shell/page/registry.js';
import { mountTabs } from './shell/page/tabs.js';
import { mountKeyboard } from './shell/page/keyboard.js';
import './shell/page/views.js';

function mount(place, ctx, into) {
  return viewsAt(place).map((v) => {
    const view = v.create(ctx);
    into.append(view.node);
    return view;
  });
}

/**
 * Keeps the sticky strip's height (and, when the What-if panel is a drawer at the bottom, the
 * drawer's) in custom properties, so that whatever gets the focus is scrolled clear of both
 * (style.css: scroll-margin; WCAG 2.4.11). Returns the observer.
 */
function trackCovers(app, top, side) {
  // every size read before anything is written (a write between two reads makes the second
  // recompute the styles of the whole page), and a property written only when it changes
  const measure = () => {
    const style = getComputedStyle(side);
    const drawer = style.position === 'sticky' && style.bottom === '0px';
    const heights = {
      '--strip-h': `${Math.ceil(top.getBoundingClientRect().height)}px`,
      '--drawer-h': `${drawer ? Math.ceil(side.getBoundingClientRect().height) : 0}px`,
    };
    for (const [name, value] of Object.entries(heights)) {
      if (app.style.getPropertyValue(name) !== value) app.style.setProperty(name, value);
    }
  };
  const observer = new ResizeObserver(measure);
  observer.observe(top);
  observer.observe(side);
  return observer;
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
    const ctx = { controller: this.controller, review: this.review, options, root, host, help: { open: () => this.keyboard?.open() } };
    const app = el('div', undefined, 'planner');
    const layout = el('div', undefined, 'layout');
    const top = el('div', undefined, 'top');
    const main = el('div', undefined, 'main');
    const side = el('div', undefined, 'side');
    const header = [...mount('alert', ctx, app), ...mount('header', ctx, app), ...mount('notices', ctx, app), ...mount('summary', ctx, top), ...mount('main', ctx, main)];
    const tabs = mountTabs(ctx, main);
    this.syncTabs = tabs.sync;
    this.views = [...header, ...tabs.views, ...mount('side', ctx, side)];
    // the exports section goes last in the main column, after the tabs
    const exports = main.querySelector('.exports');
    if (exports) main.append(exports);
    layout.append(top, main, side);
    this.parts = { main, side };
    app.append(layout);
    dropTarget(app, this.controller);
    this.keyboard = mountKeyboard(ctx, app);
    this.covers = trackCovers(app, top, side);
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
    // nothing loaded and nothing loading (a first load failed, or a job is being picked): no
    // empty chart, tabs or forms to act on, only the header, the message and the notices
    const empty = !state.result && !state.loading;
    this.parts.main.hidden = this.parts.side.hidden = empty;
  }

  destroy() {
    for (const v of this.views) v.destroy?.();
    this.keyboard.destroy();
    this.covers.disconnect();
    this.controller.close();
  }
}
