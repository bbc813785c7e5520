// The live bar under the header: whether the job shown is live, paused, reconnecting, stale (no
// change for longer than the lease TTL: the core's rule, from the last change's time; or nothing
// from the server, not even its heartbeat, for twice the heartbeat's interval, or the server's
// store not heard from for its bound: `silent`), catching up (the server sends the whole state
// again: this page fell behind) or in error; the revisions shown and the time of the last change; Pause / Resume and Save snapshot.
// For a replayed recording: the moment shown, a slider over every moment and a step back and
// forward, and Save snapshot of that moment. Hidden when no job is followed or replayed.
import { el, attrs, button } from '../../common/page/dom.js';
import { liveStatus, clock, instant, stepAt } from '../shared/state.js';
import { errorReporter } from '../../common/page/focus-chip.js';
import { utc, thousands } from '../../common/shared/format.js';

const WORDS = {
  replay: 'Replay',
  live: 'Live',
  paused: 'Paused',
  reconnecting: 'Reconnecting',
  connecting: 'Connecting',
  stale: 'Stale',
  silent: 'Stale',
  catching_up: 'Catching up',
  error: 'Error',
};

function ageText(ms) {
  const s = Math.round(ms / 1000);
  return s < 120 ? `${s} s` : `${Math.round(s / 60)} min`;
}

/** The words beside the badge, and a stopped recording's words after them. */
export function liveDetail(live) {
  const words = statusDetail(live);
  return live.recording && !live.replay ? `${words}; ${live.recording}` : words;
}

function statusDetail(live) {
  const status = liveStatus(live);
  const at = live.revisions ? `revisions ${live.revisions}` : 'no state yet';
  // the store's time of its newest write, not when this page heard of it
  const last = live.lastWrittenMs ? `; last change ${utc(String(live.lastWrittenMs))} (the store's time)` : '';
  switch (status) {
    case 'replay': {
      const { steps, moments } = live.replay;
      return `change ${thousands(stepAt(steps, live.moment) + 1)} of ${thousands(steps.length)} (moment ${thousands(live.moment + 1)} of ${thousands(moments)}), ${instant(live.at)}, ${at} (line ${thousands(live.line)})`;
    }
    case 'paused': return `${at}; ${live.waiting ? `${live.waiting} change${live.waiting === 1 ? '' : 's'} waiting` : 'no change waiting'} (the view is frozen)`;
    case 'stale': return `${at}; no change since ${clock(live.lastChangeMs)} UTC, longer than the lease TTL (${ageText(live.ttlMs)}): are the workers running?`;
    case 'reconnecting': case 'error': case 'silent': case 'catching_up': return `${at} shown; ${live.connMessage || 'the stream is interrupted'}`;
    case 'connecting': return `connecting to job ${live.job}…`;
    default: return `${at}${last}`;
  }
}

/**
 * A replay's moment picker: a slider over the moments that are news (the core's steps: lease
 * renewals and rewrites folded) and a step back and forward (the keyboard's arrows move the
 * slider one step). Hidden while following a live job.
 */
function createScrubber(controller) {
  const node = el('span', undefined, 'replay-scrub');
  const back = button('◀', () => controller.live?.step?.(-1));
  const next = button('▶', () => controller.live?.step?.(1));
  back.setAttribute('aria-label', 'the change before');
  next.setAttribute('aria-label', 'the change after');
  const slider = attrs(document.createElement('input'), { type: 'range', min: 0, max: 0, step: 1, 'aria-label': 'recorded change shown' });
  slider.addEventListener('input', () => {
    const steps = controller.state.live?.replay?.steps;
    if (steps) controller.live?.seek?.(steps[Number(slider.value)]);
  });
  node.append(back, slider, next);
  return {
    node,
    update(live) {
      node.hidden = !live.replay;
      if (!live.replay) return;
      const { steps, moments } = live.replay;
      slider.max = String(steps.length - 1);
      // while moments asked for are planned, the thumb stays where the person put it
      const k = stepAt(steps, controller.live?.target ?? live.moment);
      slider.value = String(k);
      slider.setAttribute('aria-valuetext', `change ${thousands(k + 1)} of ${thousands(steps.length)}: moment ${thousands(live.moment + 1)} of ${thousands(moments)}, ${instant(live.at)}, revisions ${live.revisions}`);
      // at either end the button refuses (aria-disabled) but keeps keyboard focus
      back.setAttribute('aria-disabled', String(live.moment <= steps[0]));
      next.setAttribute('aria-disabled', String(live.moment >= steps[steps.length - 1]));
    },
  };
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
  const scrub = createScrubber(controller);
  node.append(badge, detail, scrub.node, actions);
  return {
    node,
    update(state, prev) {
      const live = state.live;
      if (prev && live === prev.live) return;
      node.hidden = !live || Boolean(live.jobs);
      if (node.hidden) return;
      const status = liveStatus(live);
      node.dataset.status = status;
      node.dataset.recording = live.recording ? 'stopped' : '';
      badge.textContent = `${WORDS[status] || status}: job ${live.job}`;
      detail.textContent = liveDetail(live);
      pause.textContent = live.paused ? 'Resume' : 'Pause';
      pause.hidden = Boolean(live.replay);
      save.disabled = !state.ready;
      save.title = live.replay ? 'Download the job at the moment shown as a snapshot file (what spate-planner snapshot would have written then)'
        : 'Download the state shown as a snapshot file (what spate-planner snapshot writes at these revisions)';
      scrub.update(live);
    },
  };
}
