// <spate-planner>: the dashboard as a custom element, for embedding in other consoles.
//   <script type="module" src=".../element.js"></script>
//   <spate-planner snapshot="snapshots/job.json" default-cap="8"></spate-planner>
// Attributes: snapshot (same-origin URL; absent: the built-in demo fleet), default-cap,
// permalink (keep the scenario in the page's URL fragment), demo-splits, demo-members.
// Event: `plan-change` (detail: { scenario, moves, boundHit, counts, maxOverMean }).
import { PlannerApp } from './app.js';

export class SpatePlannerElement extends HTMLElement {
  static get observedAttributes() { return ['snapshot', 'default-cap']; }

  connectedCallback() {
    if (this.app) return;
    const shadow = this.shadowRoot || this.attachShadow({ mode: 'open' });
    const css = document.createElement('link');
    css.rel = 'stylesheet';
    css.href = new URL('./style.css', import.meta.url).href;
    shadow.append(css);
    const cap = Number(this.getAttribute('default-cap'));
    this.app = new PlannerApp(shadow, {
      snapshotUrl: this.getAttribute('snapshot') || null,
      defaultCap: Number.isInteger(cap) && cap >= 0 && this.hasAttribute('default-cap') ? cap : undefined,
      permalink: this.hasAttribute('permalink'),
      demo: {
        ...(this.getAttribute('demo-splits') ? { splits: Number(this.getAttribute('demo-splits')) } : {}),
        ...(this.getAttribute('demo-members') ? { members: Number(this.getAttribute('demo-members')) } : {}),
      },
    });
    this.app.addEventListener('plan-change', (e) => {
      this.dataset.ready = 'true';
      this.dataset.plans = String(Number(this.dataset.plans || 0) + 1);
      this.dataset.replanMs = e.detail.roundTripMs.toFixed(1);
      this.dispatchEvent(new CustomEvent('plan-change', { detail: e.detail, bubbles: true, composed: true }));
    });
    this.ready = this.app.start();
  }

  attributeChangedCallback(name, old, value) {
    if (!this.app || old === value) return;
    if (name === 'snapshot') this.ready = value ? this.app.loadUrl(value) : this.app.loadDemo();
    if (name === 'default-cap') {
      const cap = Number(value);
      if (Number.isInteger(cap) && cap >= 0) { this.app.baseCap = cap; this.app.replan(); }
    }
  }

  disconnectedCallback() {
    this.app?.client.terminate();
    this.app = null;
    this.shadowRoot?.replaceChildren();
  }

  /** Test hook: traps the wasm module on purpose; the element recovers as after a real trap. */
  crashForTest() { return this.app?.client.crashForTest(); }

  /** The scenario as JSON text (docs/scenario-format.md). */
  get scenario() { return this.app?.scenario(); }

  set scenario(text) { this.app?.setScenario(text); }
}

if (!customElements.get('spate-planner')) customElements.define('spate-planner', SpatePlannerElement);
