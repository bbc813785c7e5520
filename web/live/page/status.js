// The live bar under the header: whether the job shown is live, paused, reconnecting, stale (no
// change for longer than the lease TTL: the core's rule, from the last change's time) or in error; the revisions shown and
// the time of the last change; Pause / Resume and Save snapshot. Hidden when no job is followed.
import { el, attrs, button } from '../../common/page/dom.js';
import { liveStatus, clock } from '../shared/state.js';
import { errorReporter } from '../../common/page/focus-chip.js';

const WORDS = {
  live: 'Live',
  paused: 'Paused',
  reconnecting: 'Reconnecting',
  connecting: 'Connecting',
  stale: 'Stale',
  error: 'Error',
};

function ageText(ms) {
  const s = Math.round(ms / 1000);
  return s < 120 ? `${s} s` : `${Math.round(s / 60)} min`;
}

/** The words beside the badge. */
export function liveDetail(live) {
  const status = liveStatus(live);
  const at = live.revisions ? `revisions ${live.revisions}` : 'no state yet';
  const last = live.lastChangeMs ? `; last change ${clock(live.lastChangeMs)} UTC` : '';
  switch (status) {
    case 'paused': return `${at}; ${live.waiting ? `${live.waiting} change${live.waiting === 1 ? '' : 's'} waiting` : 'no change waiting'} (the view is frozen)`;
    case 'stale': return `${at}; no change since ${clock(live.lastChangeMs)} UTC, longer than the lease TTL (${ageText(live.ttlMs)}): are the workers running?`;
    case 'reconnecting': case 'error': return `${at} shown; ${live.connMessage || 'the stream is interrupted'}`;
    case 'connecting': return `connecting to job ${live.job}…`;
    default: return `${at}${last}`;
  }
}

export function createLiveStatus(ctx) {
  const { controller } = ctx;
  const node = attrs(el('section', undefined, 'live-bar'), { 'aria-label': 'Live job' });
  node.hidden = true;
  const badge = attrs(el('span', '', 'live-badge'), { role: 'status' });
  const detail = el('span', '', 'live-detail');
  const report = errorReporter(controller, 'The snapshot could not be saved');
  const pause = button('Pause', () => controller.live?.pause(!controller.state.live.paused));
  const save = button('Save snapshot', () => controller.live?.save().catch(report));
  save.title = 'Download the state shown as a snapshot file (what spate-planner snapshot writes at these revisions)';
  const actions = el('span', undefined, 'live-actions');
  actions.append(pause, save);
  node.append(badge, detail, actions);
  return {
    node,
    update(state, prev) {
      const live = state.live;
      if (prev && live === prev.live) return;
      node.hidden = !live || Boolean(live.jobs);
      if (node.hidden) return;
      const status = liveStatus(live);
      node.dataset.status = status;
      badge.textContent = `${WORDS[status] || status}: job ${live.job}`;
      detail.textContent = liveDetail(live);
      pause.textContent = live.paused ? 'Resume' : 'Pause';
      save.disabled = !state.ready;
    },
  };
}
