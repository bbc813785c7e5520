// <spate-planner>: the dashboard as a custom element, for embedding in other consoles.
//   import 'spate-planner-dashboard/element';   (or <script type="module" src=".../element.js">)
//   <spate-planner snapshot="snapshots/job.json"></spate-planner>
// Attributes: snapshot (same-origin URL; absent: the built-in demo fleet), snapshot-name (the name
// the header shows for it; absent: the URL's last part; `serve job.json` sets it), default-cap (the
// scenario's default_cap), theme (light | dark; absent: the system's), permalink (keep the
// scenario in the page's URL fragment), demo-splits, demo-members, live (the event stream of
// `spate-planner serve --server`, e.g. /api/live: follow a running job) and job (the job to
// follow; absent: the server's --job, or a list of its jobs to pick from); embedded (inside a
// console: no title of its own and no buttons to open another snapshot, paste one or load the
// demo — the console names and loads what it shows; read when the element is connected).
// Event: `plan-change` after every plan shown (detail: see docs/embedding.md).
import { PlannerApp } from './app.js';
import { fromFragment, bindPermalink } from './shell/shared/permalink.js';
import { parseScenario, scenarioText, emptyScenario } from './common/shared/scenario.js';
import { emptyTimeline } from './timeline/shared/script.js';

function capAttr(value) {
  const cap = Number(value);
  return value !== null && value !== '' && Number.isInteger(cap) && cap >= 0 ? cap : null;
}

export class SpatePlannerElement extends HTMLElement {
  static get observedAttributes() { return ['snapshot', 'default-cap', 'live', 'job']; }

  connectedCallback() {
    if (this.app) return;
    const shadow = this.shadowRoot || this.attachShadow({ mode: 'open' });
    const css = document.createElement('link');
    css.rel = 'stylesheet';
    css.href = new URL('./style.css', import.meta.url).href;
    shadow.append(css);
    const demo = {};
    if (this.getAttribute('demo-splits')) demo.splits = Number(this.getAttribute('demo-splits'));
    if (this.getAttribute('demo-members')) demo.members = Number(this.getAttribute('demo-members'));
    this.app = new PlannerApp(shadow, this, { permalink: this.hasAttribute('permalink'), embedded: this.hasAttribute('embedded'), demo });
    this.controller = this.app.controller;
    this.controller.addEventListener('plan', () => this.planned());
    this.ready = this.start(demo);
  }

  /** The first load: the link's scenario (if any) planned on the snapshot named (or the demo). */
  async start(demo) {
    let link = null;
    if (this.hasAttribute('permalink')) {
      link = fromFragment(location.hash);
      this.controller.fromLink(link);
      bindPermalink(window, this.controller.store, (next) => {
        this.controller.setOrder(next.order);
        if (next.tab) this.controller.showTab(next.tab);
        if (next.member !== this.controller.state.focus) this.controller.focus(next.member);
        this.controller.setTimeline(next.timeline ?? emptyTimeline(), 'Timeline read from the address.');
        this.controller.setScenario(next.error ? emptyScenario() : next.scenario, 'Scenario read from the address.', 'of the link');
      });
    }
    const cap = capAttr(this.getAttribute('default-cap'));
    if (cap !== null) this.controller.presetDefaultCap(cap);
    const url = this.getAttribute('snapshot');
    if (this.liveWanted()) {
      await this.startLive();
      return;
    }
    // a snapshot that cannot be loaded is the message, and nothing is shown: never the demo
    // fleet in its place
    if (url) await this.controller.loadUrl(url, link, this.getAttribute('snapshot-name'));
    else await this.controller.loadDemo(demo, link);
    if (link?.timelineError) this.controller.report(link.timelineError, "The link's timeline could not be read; the Timeline starts empty", 'warning');
    if (link?.orderError) this.controller.report(link.orderError, "The link's order could not be used", 'warning');
    if (link && this.controller.state.info) this.controller.fromLinkReview(link);
  }

  /** The job named by the `job` attribute or the `live` URL's ?job=, or null. */
  liveJob() {
    const live = this.getAttribute('live');
    return this.getAttribute('job') || (live ? new URL(live, document.baseURI).searchParams.get('job') : null);
  }

  /** A live job is followed when `live` is set and a job is named, or no snapshot is. */
  liveWanted() {
    return Boolean(this.getAttribute('live')) && (Boolean(this.liveJob()) || !this.getAttribute('snapshot'));
  }

  startLive() {
    return this.controller.startLive(this.getAttribute('live'), this.liveJob());
  }

  planned() {
    const s = this.controller.state;
    const r = s.result;
    const worst = r.view.summary.heaviest_now;
    this.dataset.ready = 'true';
    this.dataset.plans = String(Number(this.dataset.plans || 0) + 1);
    this.dataset.replanMs = r.roundTripMs.toFixed(1);
    if (s.live) this.dataset.revisions = s.live.revisions;
    this.dispatchEvent(new CustomEvent('plan-change', {
      bubbles: true,
      composed: true,
      detail: {
        scenario: scenarioText(s.scenario),
        failures: r.failures,
        job: s.info.job,
        moves: r.view.report.churn.moves,
        boundHit: r.view.report.bound_hit,
        counts: r.view.report.counts,
        maxOverMean: r.view.report.balance.max_over_mean,
        worst: worst && { name: worst.name, now: worst.load_now, planned: worst.load_planned },
        planMs: r.planMs,
        roundTripMs: r.roundTripMs,
        revisions: s.live ? s.live.revisions : null,
      },
    }));
  }

  attributeChangedCallback(name, old, value) {
    if (!this.app || old === value) return;
    if ((name === 'live' || name === 'job') && this.liveWanted()) this.ready = this.startLive();
    if (name === 'snapshot' && !this.liveWanted()) this.ready = value ? this.controller.loadUrl(value) : this.controller.loadDemo();
    if (name === 'default-cap') this.controller.setSettings({ defaultCap: capAttr(value) });
  }

  disconnectedCallback() {
    this.app?.destroy();
    this.app = null;
    this.controller = null;
    this.shadowRoot?.replaceChildren();
  }

  /** The scenario as JSON text (docs/scenario-format.md). */
  get scenario() { return this.controller ? scenarioText(this.controller.state.scenario) : ''; }

  /** Replaces the scenario; text that cannot be read becomes the page's message. */
  set scenario(text) {
    if (!this.controller) return;
    let s;
    try {
      s = parseScenario(text);
    } catch (e) {
      this.controller.report({ message: e.message, code: e.code || 'invalid_scenario' }, 'The scenario could not be read');
      return;
    }
    this.controller.setScenario(s);
  }
}

if (!customElements.get('spate-planner')) customElements.define('spate-planner', SpatePlannerElement);
