// The dashboard: mounts into any element or shadow root. Loading, planning and what-if all go
// through the worker (planner-client.js); this module only renders, and renders text as text.
import { PlannerClient } from './planner-client.js';
import { scenarioText, toFragment, fromFragment, parseScenario, describe } from './scenario.js';
import { humanBytes, parseBytes, ratio, el, reasonText, download } from './format.js';
import { fleetChart, roundsChart, svgText, svgToPng } from './fleet-chart.js';
import { VirtualTable } from './virtual-table.js';
import { markdownReport } from './report.js';

export const DEMO = { splits: 2000, members: 24, seed: 1 };
const SPATE_DEFAULT_CAP = 8;

function section(title, cls) {
  const s = el('section', undefined, cls);
  if (title) s.append(el('h2', title));
  return s;
}

function field(label, input) {
  const l = el('label', undefined, 'field');
  l.append(el('span', label), input);
  return l;
}

function input(type, attrs = {}) {
  const i = document.createElement('input');
  i.type = type;
  for (const [k, v] of Object.entries(attrs)) i.setAttribute(k, v);
  return i;
}

function button(text, onClick, cls) {
  const b = el('button', text, cls);
  b.type = 'button';
  b.addEventListener('click', onClick);
  return b;
}

function select(options) {
  const s = document.createElement('select');
  for (const [value, text] of options) {
    const o = el('option', text);
    o.value = value;
    s.append(o);
  }
  return s;
}

export class PlannerApp extends EventTarget {
  /**
   * root: an Element or ShadowRoot to render into.
   * options: { snapshotUrl, defaultCap, permalink (sync with location.hash), demo }
   */
  constructor(root, options = {}) {
    super();
    this.root = root;
    this.options = options;
    this.state = { defaultCap: null, changes: [] };
    this.baseCap = options.defaultCap ?? SPATE_DEFAULT_CAP;
    this.info = null;
    this.view = null;
    this.baseline = null;
    this.order = 'name';
    this.client = new PlannerClient({
      onRestart: (cause) => {
        this.showError(Object.assign(new Error(`${cause.message}. A fresh module was started and the snapshot reloaded; your scenario is kept (it is in the link).`), { code: cause.code || 'wasm_trap' }), 'The planner module failed');
        this.errorBox.classList.add('recovered');
        this.replan();
      },
    });
    this.build();
    if (options.permalink) {
      const { state, extra, error } = fromFragment(location.hash);
      this.state = state;
      if (extra.order) this.order = extra.order === 'load' ? 'load' : 'name';
      // shown once the fleet has loaded (loading clears earlier errors)
      if (error) this.linkError = Object.assign(error, { code: 'bad_link' });
      window.addEventListener('hashchange', () => {
        const next = fromFragment(location.hash);
        if (!next.error && scenarioText(next.state) !== scenarioText(this.state)) {
          this.state = next.state;
          this.replan();
        }
      });
    }
  }

  // ---------------------------------------------------------------- layout

  build() {
    const r = this.root;
    const app = el('div', undefined, 'planner');
    this.app = app;

    const header = el('header', undefined, 'bar');
    const title = el('div', undefined, 'title');
    title.append(el('strong', 'spate-planner'), this.sourceLine = el('span', 'loading…', 'source'));
    const load = el('div', undefined, 'load');
    this.fileInput = input('file', { accept: '.json,application/json', 'aria-label': 'snapshot file' });
    this.fileInput.addEventListener('change', () => { const f = this.fileInput.files[0]; if (f) this.loadFile(f); this.fileInput.value = ''; });
    const pick = button('Open snapshot…', () => this.fileInput.click());
    this.fileInput.hidden = true;
    const paste = button('Paste…', () => this.togglePaste());
    const demo = button('Demo fleet', () => this.loadDemo());
    load.append(pick, this.fileInput, paste, demo);
    header.append(title, load);

    this.pasteBox = el('div', undefined, 'paste');
    this.pasteBox.hidden = true;
    this.pasteArea = document.createElement('textarea');
    this.pasteArea.placeholder = 'Paste a snapshot file (spate-planner-snapshot/1) here';
    this.pasteArea.setAttribute('aria-label', 'snapshot text');
    this.pasteBox.append(this.pasteArea, button('Load pasted snapshot', () => this.loadText(this.pasteArea.value, 'pasted')));

    this.progress = el('div', undefined, 'progress');
    this.progress.hidden = true;
    this.progressBar = el('div', undefined, 'progress-bar');
    this.progressText = el('span');
    this.progress.append(this.progressBar, this.progressText);
    this.status = el('div', '', 'status');
    this.status.setAttribute('role', 'status');
    this.errorBox = el('div', undefined, 'error');
    this.errorBox.setAttribute('role', 'alert');
    this.errorBox.hidden = true;

    const settings = el('div', undefined, 'settings');
    this.capInput = input('number', { min: '0', max: '4294967295', step: '1', 'aria-label': 'leader default cap' });
    this.capInput.addEventListener('change', () => {
      const v = this.capInput.value.trim();
      this.state.defaultCap = v === '' ? null : Math.max(0, Math.min(4294967295, Math.floor(Number(v))));
      this.changed();
    });
    this.orderSelect = select([['name', 'by name'], ['load', 'by planned load']]);
    this.orderSelect.addEventListener('change', () => { this.order = this.orderSelect.value; this.renderChart(); this.syncUrl(); });
    const exports = el('div', undefined, 'exports');
    exports.append(
      button('Plan JSON', () => this.exportJson()),
      button('Report (Markdown)', () => this.exportMarkdown()),
      button('Chart SVG', () => this.exportSvg()),
      button('Chart PNG', () => this.exportPng()),
      this.copyLink = button('Copy link', () => this.copyPermalink()),
    );
    settings.append(field('Leader default cap', this.capInput), field('Members', this.orderSelect), exports);

    this.warningsBox = el('details', undefined, 'warnings');
    this.warningsBox.hidden = true;

    this.figures = section('Figures', 'figures');
    this.figuresBody = el('div');
    this.figures.append(this.figuresBody);

    this.whatif = section('What-if', 'whatif');
    this.buildWhatIf();

    this.fleet = section('Fleet', 'fleet');
    this.chartHost = el('div', undefined, 'chart');
    this.fleet.append(this.chartHost);

    this.movesSec = section('Moves', 'moves');
    const movesFilter = input('search', { placeholder: 'filter by split, member or reason', 'aria-label': 'filter moves' });
    movesFilter.addEventListener('input', () => this.movesTable?.setFilter(movesFilter.value));
    this.movesHost = el('div');
    this.movesSec.append(movesFilter, this.movesHost);
    this.movesTable = new VirtualTable(this.movesHost, {
      columns: [
        { key: 'split', label: 'split', render: (m) => m.split },
        { key: 'weight', label: 'weight', render: (m) => humanBytes(m.weight) },
        { key: 'from', label: 'from', render: (m) => m.from ?? '(nobody)' },
        { key: 'to', label: 'to', render: (m) => m.to ?? '(queue)' },
        { key: 'reason', label: 'why', render: (m) => reasonText(m.reason) },
        { key: 'gain', label: 'gain', render: (m) => m.gain ?? '' },
      ],
      initialSort: { key: 'weight', desc: true },
      fetch: (q) => (this.view ? this.client.call('moves', q) : Promise.resolve({ total: 0, rows: [] })),
    });

    this.splitsSec = section('Splits', 'splits');
    const q = input('search', { placeholder: 'split id contains…', 'aria-label': 'search splits' });
    q.addEventListener('input', () => this.searchSplits(q.value));
    this.splitsQuery = q;
    this.splitsHost = el('div', undefined, 'scroll');
    this.splitsSec.append(q, this.splitsHost);

    this.claimsSec = section('Claims', 'claims');
    this.claimsInstance = select([]);
    this.claimsMax = input('number', { min: '0', value: '4', 'aria-label': 'max attempts' });
    this.claimsHost = el('div', undefined, 'scroll');
    this.claimsInstance.addEventListener('change', () => this.renderClaims());
    this.claimsMax.addEventListener('change', () => this.renderClaims());
    const claimsForm = el('div', undefined, 'row');
    claimsForm.append(field('Instance', this.claimsInstance), field('max_attempts', this.claimsMax));
    this.claimsSec.append(claimsForm, this.claimsHost);

    this.convSec = section('Convergence', 'convergence');
    this.convHost = el('div');
    this.convSec.append(
      el('p', 'Apply the plan as the new ownership and replan, round after round, until nothing moves.', 'hint'),
      button('Run rounds', () => this.renderConvergence()),
      this.convHost,
    );

    const grid = el('div', undefined, 'grid');
    const left = el('div', undefined, 'col-main');
    const right = el('div', undefined, 'col-side');
    left.append(this.figures, this.fleet, this.movesSec, this.splitsSec);
    right.append(this.whatif, this.claimsSec, this.convSec);
    grid.append(left, right);

    app.append(header, this.pasteBox, this.progress, this.status, this.errorBox, settings, this.warningsBox, grid);
    app.addEventListener('dragover', (e) => { e.preventDefault(); app.classList.add('dragging'); });
    app.addEventListener('dragleave', (e) => { if (e.target === app) app.classList.remove('dragging'); });
    app.addEventListener('drop', (e) => {
      e.preventDefault();
      app.classList.remove('dragging');
      const f = e.dataTransfer?.files?.[0];
      if (f) this.loadFile(f);
    });
    r.append(app);
  }

  buildWhatIf() {
    const w = this.whatif;
    const forms = el('div', undefined, 'forms');
    const add = (title, fields, make) => {
      const f = el('form', undefined, 'change');
      f.append(el('h3', title), ...fields.map(([label, inp]) => field(label, inp)));
      const b = el('button', 'Apply');
      b.type = 'submit';
      f.append(b);
      f.addEventListener('submit', (e) => {
        e.preventDefault();
        try {
          const c = make();
          if (c) { this.state.changes.push(c); this.changed(); f.reset(); }
        } catch (err) {
          this.showError(err, 'That change cannot be made');
        }
      });
      forms.append(f);
    };
    const text = (ph, aria) => input('text', { placeholder: ph, 'aria-label': aria });
    const num = (ph, aria) => input('number', { placeholder: ph, min: '0', 'aria-label': aria });

    const addName = text('worker-new', 'new member name');
    const addCap = num('default', 'new member cap');
    add('Add a member', [['name', addName], ['cap', addCap]], () => {
      const member = addName.value.trim();
      if (!member) throw new Error('name the member');
      const c = { op: 'add_member', member };
      if (addCap.value) c.cap = Number(addCap.value);
      return c;
    });

    this.removeSelect = select([]);
    this.removeSelect.setAttribute('aria-label', 'member to remove');
    const within = input('checkbox', { 'aria-label': 'departed within the rebalance delay' });
    add('Remove a member', [['member', this.removeSelect], ['left within the rebalance delay (reserve its splits)', within]], () => ({
      op: 'remove_member', member: this.removeSelect.value, within_rebalance_delay: within.checked,
    }));

    this.capSelect = select([]);
    this.capSelect.setAttribute('aria-label', 'member whose cap to change');
    const capVal = num('0 = default', 'new cap');
    add('Change a cap', [['member', this.capSelect], ['cap', capVal]], () => ({ op: 'set_cap', member: this.capSelect.value, cap: Number(capVal.value || 0) }));

    const resIds = text('split ids, comma separated', 'splits to reserve or release');
    const resMode = select([['reserve', 'reserve'], ['release', 'release']]);
    resMode.setAttribute('aria-label', 'reserve or release');
    add('Reserve or release splits', [['splits', resIds], ['', resMode]], () => {
      const splits = resIds.value.split(',').map((s) => s.trim()).filter(Boolean);
      if (!splits.length) throw new Error('name at least one split');
      return { op: resMode.value, splits };
    });

    const wId = text('split id', 'split whose weight to change');
    const wVal = text('e.g. 6GiB or 123456', 'new weight');
    add('Change a weight', [['split', wId], ['weight', wVal]], () => ({ op: 'set_weight', split: wId.value.trim(), weight: parseBytes(wVal.value) }));

    const nCount = num('100', 'how many splits to add');
    const nWeight = text('64MiB', 'weight of each added split');
    const nPrefix = text('synthetic-', 'id prefix of added splits');
    add('Add synthetic splits', [['count', nCount], ['weight each', nWeight], ['id prefix', nPrefix]], () => {
      const c = { op: 'add_splits', count: String(Math.max(0, Math.floor(Number(nCount.value || 0)))), weight: parseBytes(nWeight.value || '64MiB') };
      if (nPrefix.value.trim()) c.prefix = nPrefix.value.trim();
      return c;
    });

    this.changesList = el('ol', undefined, 'changes');
    const tools = el('div', undefined, 'row');
    tools.append(
      this.undoButton = button('Undo last change', () => { this.state.changes.pop(); this.changed(); }),
      this.clearButton = button('Clear all', () => { this.state.changes = []; this.changed(); }),
    );
    this.departedBox = el('div', undefined, 'departed');
    w.append(el('h3', 'Changes'), this.changesList, tools, this.departedBox, forms);
  }

  // ---------------------------------------------------------------- loading

  note(text) {
    this.status.textContent = text;
  }

  showError(e, context) {
    this.errorBox.hidden = false;
    const where = [e.bucket && `bucket ${e.bucket}`, e.key && `key ${e.key}`, e.path && `at ${e.path}`].filter(Boolean).join(', ');
    this.errorBox.replaceChildren(
      el('strong', context),
      el('div', e.message),
      el('div', where, 'where'),
      el('div', e.code ? `code: ${e.code}` : '', 'code'),
    );
    this.errorBox.dataset.code = e.code || '';
  }

  clearError(keepRecovery = false) {
    if (keepRecovery && this.errorBox.classList.contains('recovered')) return;
    this.errorBox.classList.remove('recovered');
    this.errorBox.hidden = true;
    this.errorBox.replaceChildren();
  }

  setProgress(fraction, text) {
    this.progress.hidden = fraction === null;
    if (fraction !== null) {
      this.progressBar.style.width = `${Math.round(fraction * 100)}%`;
      this.progressText.textContent = text;
    }
  }

  async start() {
    const url = this.options.snapshotUrl;
    if (url) await this.loadUrl(url);
    else await this.loadDemo();
  }

  async loadDemo() {
    const d = { ...DEMO, ...(this.options.demo || {}) };
    await this.load({ kind: 'demo', splits: d.splits, members: d.members, seed: d.seed }, 'the built-in demo fleet');
  }

  async loadFile(file) {
    this.clearError();
    try {
      await this.load({ kind: 'file', file }, file.name);
    } catch (e) {
      this.showError(e, `${file.name} could not be loaded; the fleet shown is unchanged`);
    }
  }

  async loadUrl(url) {
    this.clearError();
    try {
      const resolved = new URL(url, document.baseURI);
      if (resolved.origin !== location.origin) {
        throw Object.assign(new Error(`snapshots are only loaded from this page's origin (${location.origin}), not ${resolved.origin}`), { code: 'cross_origin' });
      }
      await this.load({ kind: 'url', url: resolved.href }, resolved.pathname.split('/').pop() || resolved.pathname);
    } catch (e) {
      this.showError(e, 'The snapshot could not be loaded');
      if (!this.info) await this.loadDemo();
    }
  }

  async loadText(text, label) {
    try {
      this.clearError();
      await this.load({ kind: 'text', payload: text }, label);
      this.pasteBox.hidden = true;
    } catch (e) {
      this.showError(e, 'The pasted snapshot could not be loaded; the fleet shown is unchanged');
    }
  }

  togglePaste() {
    this.pasteBox.hidden = !this.pasteBox.hidden;
  }

  async load(msg, label) {
    this.setProgress(0, `loading ${label}…`);
    const t0 = performance.now();
    const progress = ({ got, total }) => {
      if (got < 0) this.setProgress(1, `parsing ${label}…`);
      else this.setProgress(total ? got / total : 0.5, `reading ${label}: ${humanBytes(got)}${total ? ` of ${humanBytes(total)}` : ''}`);
    };
    try {
      const info = await this.client.load(msg, progress);
      this.info = info;
      this.loadMs = performance.now() - t0;
      this.label = label;
      this.renderInfo();
      this.clearError();
      if (this.linkError) {
        this.showError(this.linkError, 'The link\'s scenario could not be read; planning without it');
        this.errorBox.classList.add('recovered'); // keep it on screen through the first plan
        this.linkError = null;
      }
      await this.replan();
    } finally {
      this.setProgress(null);
    }
  }

  // ---------------------------------------------------------------- planning

  scenario() {
    return scenarioText(this.state);
  }

  changed() {
    this.syncUrl();
    this.replan();
  }

  syncUrl() {
    if (!this.options.permalink) return;
    const frag = toFragment(this.state, { order: this.order === 'load' ? 'load' : null });
    const url = `${location.pathname}${location.search}${frag}`;
    history.replaceState(null, '', url);
  }

  async replan() {
    if (!this.info) return;
    const cap = this.baseCap;
    this.capInput.value = this.state.defaultCap ?? '';
    this.capInput.placeholder = String(cap);
    this.renderChanges();
    try {
      const t0 = performance.now();
      const view = await this.client.call('plan', { scenario: this.scenario(), defaultCap: cap });
      this.view = view;
      this.replanMs = performance.now() - t0;
      this.baseline = this.state.changes.length
        ? await this.client.call('baseline', { scenario: scenarioText({ defaultCap: this.state.defaultCap, changes: [] }), defaultCap: cap })
        : null;
      this.clearError(true);
    } catch (e) {
      this.showError(e, 'The what-if cannot be planned; undo the last change or fix it');
      return;
    }
    this.render();
    this.dispatchEvent(new CustomEvent('plan-change', {
      detail: {
        scenario: this.scenario(),
        moves: this.view.churnMoves,
        boundHit: this.view.boundHit,
        counts: this.view.counts,
        maxOverMean: this.view.maxOverMean,
        planMs: this.view.planMs,
        roundTripMs: this.replanMs,
        loadMs: this.loadMs,
      },
    }));
  }

  // ---------------------------------------------------------------- rendering

  renderInfo() {
    const i = this.info;
    const when = new Date(i.takenAtMs).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
    this.sourceLine.textContent = ` — job ${i.job} (${this.label}), taken ${when}, ${i.members.length} members, ${i.splits} splits`;
    const w = this.warningsBox;
    w.hidden = i.warnings.length === 0;
    const sum = el('summary', `${i.warnings.length} warning${i.warnings.length === 1 ? '' : 's'} in the snapshot (the leader survives these)`);
    const list = el('ul');
    for (const x of i.warnings.slice(0, 500)) {
      const li = el('li');
      li.append(el('code', x.code), el('span', ` bucket ${x.bucket}, key ${x.key}: ${x.message}`));
      list.append(li);
    }
    if (i.warnings.length > 500) list.append(el('li', `… and ${i.warnings.length - 500} more`));
    w.replaceChildren(sum, list);

    const members = i.members.map((m) => [m.name, m.name]);
    const owners = i.departedOwners.map((m) => [m, `${m} (departed)`]);
    for (const s of [this.removeSelect, this.capSelect]) s.replaceChildren();
    const fill = (s, opts) => { for (const [v, t] of opts) { const o = el('option', t); o.value = v; s.append(o); } };
    fill(this.removeSelect, [...members, ...owners]);
    fill(this.capSelect, members);
    this.claimsInstance.replaceChildren();
    fill(this.claimsInstance, [...members, ...owners]);
    this.orderSelect.value = this.order;
  }

  renderChanges() {
    this.changesList.replaceChildren(...this.state.changes.map((c, idx) => {
      const li = el('li');
      li.append(el('span', describe(c)), button('✕', () => { this.state.changes.splice(idx, 1); this.changed(); }, 'remove'));
      return li;
    }));
    if (!this.state.changes.length) this.changesList.append(el('li', 'none yet: the plan shown is the baseline', 'hint'));
    this.undoButton.disabled = !this.state.changes.length;
    this.clearButton.disabled = !this.state.changes.length;
    // departed owners: one click to say "still within the rebalance delay"
    const owners = this.info?.departedOwners || [];
    this.departedBox.replaceChildren();
    if (owners.length) {
      this.departedBox.append(el('p', 'Owners no longer in the fleet. Those that left less than the rebalance delay ago keep their splits reserved:', 'hint'));
      for (const o of owners) {
        const on = this.state.changes.some((c) => c.op === 'remove_member' && c.member === o && c.within_rebalance_delay);
        const box = input('checkbox', { 'aria-label': `${o} within the rebalance delay` });
        box.checked = on;
        box.addEventListener('change', () => {
          if (box.checked) this.state.changes.push({ op: 'remove_member', member: o, within_rebalance_delay: true });
          else this.state.changes = this.state.changes.filter((c) => !(c.op === 'remove_member' && c.member === o));
          this.changed();
        });
        const l = el('label', undefined, 'check');
        l.append(box, el('span', ` ${o}`));
        this.departedBox.append(l);
      }
    }
  }

  render() {
    this.renderFigures();
    this.renderChart();
    this.movesTable.refresh(true);
    this.searchSplits(this.splitsQuery.value);
    this.renderClaims();
    this.convHost.replaceChildren();
    this.note(`Planned in ${this.view.planMs.toFixed(1)} ms (worker round trip ${this.replanMs.toFixed(1)} ms).`);
    this.app.dataset.ready = 'true';
  }

  figureRows(v) {
    const c = v.counts;
    return [
      ['members', v.members.length],
      ['splits assigned', c.assigned],
      ['queued beyond the lanes', c.queued],
      ['reserved', c.reserved],
      ['completed', c.completed],
      ['quarantined', c.quarantined],
      ['waiting for a spec', c.waitingForSpec],
      ['total weight', humanBytes(v.total)],
      ['max load', humanBytes(v.maxLoad)],
      ['mean load', humanBytes(v.meanLoad)],
      ['max / mean', ratio(v.maxOverMean)],
      ['max / lower bound', ratio(v.maxOverBound)],
      ['moves (churn)', v.churnMoves],
      ['differs from the published assignment', v.publishedChanges == null ? 'nothing published' : `${v.publishedChanges} splits`],
      ['weight moved', humanBytes(v.weightMoved)],
      ['improving moves', v.improvingMoves],
      ['4096-move bound', v.boundHit ? (v.improvable ? 'hit, more moves remain' : 'hit') : 'not hit'],
    ];
  }

  renderFigures() {
    const t = el('table', undefined, 'figures-table');
    const head = el('tr');
    const cols = this.baseline ? ['', 'baseline', 'what-if'] : ['', 'plan'];
    head.append(...cols.map((h) => el('th', h)));
    t.append(head);
    const now = this.figureRows(this.view);
    const base = this.baseline ? this.figureRows(this.baseline) : null;
    now.forEach(([k, v], i) => {
      const tr = el('tr');
      tr.dataset.figure = k;
      tr.append(el('th', k));
      if (base) tr.append(el('td', base[i][1]));
      const td = el('td', v);
      if (base && String(base[i][1]) !== String(v)) td.className = 'changed';
      tr.append(td);
      t.append(tr);
    });
    this.figuresBody.replaceChildren(t);
  }

  renderChart() {
    if (!this.view) return;
    const width = Math.max(640, Math.min(1100, this.chartHost.clientWidth || 900));
    this.chart = fleetChart(this.view.members, { order: this.order, width, title: `Fleet of job ${this.info.job}` });
    this.chartHost.replaceChildren(this.chart);
  }

  async searchSplits(query) {
    if (!this.view) return;
    const seq = (this.splitSeq = (this.splitSeq || 0) + 1);
    const rows = await this.client.call('findSplits', { scenario: this.scenario(), defaultCap: this.baseCap, query, limit: 200 });
    if (seq !== this.splitSeq) return;
    const t = el('table', undefined, 'data');
    const hdr = ['split', 'status', 'owner', 'lease (left)', 'epoch', 'attempts', 'weight', 'planned'];
    const h = el('tr');
    h.append(...hdr.map((x) => el('th', x)));
    t.append(h);
    for (const s of rows) {
      const tr = el('tr');
      const lease = s.leaseOwner ? `${s.leaseOwner} (${(s.leaseLeftMs / 1000).toFixed(1)} s)` : '—';
      const status = `${s.status}${s.completed && s.status !== 'completed' ? ', completed' : ''}${s.reserved ? ', reserved' : ''}`;
      tr.append(...[s.id, status, s.owner ?? '—', lease, s.epoch, s.attempts, s.weight ? humanBytes(s.weight) : 'no spec', s.planned ?? '—'].map((x) => el('td', x)));
      t.append(tr);
    }
    this.splitsHost.replaceChildren(t, el('p', rows.length === 200 ? 'first 200 matches' : `${rows.length} match${rows.length === 1 ? '' : 'es'}`, 'hint'));
  }

  async renderClaims() {
    if (!this.view || !this.claimsInstance.value) return;
    const list = await this.client.call('claims', {
      scenario: this.scenario(), defaultCap: this.baseCap, instance: this.claimsInstance.value,
      maxAttempts: Math.max(0, Math.floor(Number(this.claimsMax.value || 4))),
    });
    const t = el('table', undefined, 'data');
    const h = el('tr');
    h.append(...['#', 'split', 'kind', 'action'].map((x) => el('th', x)));
    t.append(h);
    list.slice(0, 500).forEach((c, i) => {
      const tr = el('tr', undefined, c.action === 'quarantine' ? 'quarantine' : '');
      tr.append(el('td', i + 1), el('td', c.id), el('td', c.kind), el('td', c.action));
      t.append(tr);
    });
    this.claimsHost.replaceChildren(t, el('p', `${list.length} candidate${list.length === 1 ? '' : 's'} (the splits the plan gives this instance count as owned)`, 'hint'));
  }

  async renderConvergence() {
    const rounds = await this.client.call('converge', { scenario: this.scenario(), defaultCap: this.baseCap, maxRounds: 30 });
    const t = el('table', undefined, 'data');
    const h = el('tr');
    h.append(...['round', 'moves', 'weight moved', 'improving', 'bound hit', 'max/mean'].map((x) => el('th', x)));
    t.append(h);
    for (const r of rounds) {
      const tr = el('tr');
      tr.append(...[r.round, r.moves, humanBytes(r.weightMoved), r.improvingMoves, r.boundHit ? 'yes' : 'no', ratio(r.maxOverMean)].map((x) => el('td', x)));
      t.append(tr);
    }
    const last = rounds[rounds.length - 1];
    const verdict = last && last.moves === 0 ? `Converged: round ${last.round} moves nothing.` : `Still moving after ${rounds.length} rounds.`;
    this.convHost.replaceChildren(roundsChart(rounds), el('p', verdict, 'hint'), t);
    this.convHost.dataset.rounds = String(rounds.length);
  }

  // ---------------------------------------------------------------- exports

  fileStem() {
    return `spate-plan-${this.info?.job || 'fleet'}${this.state.changes.length ? '-whatif' : ''}`;
  }

  async exportJson() {
    const text = await this.client.call('planJson', { scenario: this.scenario(), defaultCap: this.baseCap });
    download(`${this.fileStem()}.json`, 'application/json', text);
    return text;
  }

  async exportMarkdown() {
    const moves = await this.client.call('moves', { sort: 'weight', desc: true, filter: '', offset: 0, limit: 200 });
    const md = markdownReport({ info: this.info, view: this.view, baseline: this.baseline, state: this.state, moves, link: this.options.permalink ? location.href : null });
    download(`${this.fileStem()}.md`, 'text/markdown', md);
    return md;
  }

  exportSvg() {
    download(`${this.fileStem()}.svg`, 'image/svg+xml', svgText(this.chart));
  }

  async exportPng() {
    download(`${this.fileStem()}.png`, 'image/png', await svgToPng(this.chart));
  }

  async copyPermalink() {
    this.syncUrl();
    try {
      await navigator.clipboard.writeText(location.href);
      this.note('Link copied: it reopens this view with the same snapshot.');
    } catch {
      this.note(`Link: ${location.href}`);
    }
  }

  /** Replaces the scenario (e.g. from an embedding page). */
  setScenario(text) {
    this.state = parseScenario(text);
    this.changed();
  }
}
