// The answer first: a strip of figures for "who is overloaded, and what does the plan do about
// it", each explained in words on hover (and to assistive technology), and the status line
// that says what the last action changed.
import { el, attrs } from '../../common/page/dom.js';
import { changed } from '../../common/page/store.js';
import { summarize } from '../../common/shared/summary.js';
import { humanBytes, exactBytes, ratio, times, thousands, plural } from '../../common/shared/format.js';

function tile(key, label, value, sub, help) {
  const t = attrs(el('div', undefined, 'tile'), { 'data-tile': key, title: help });
  const v = el('div', value, 'value');
  t.append(el('div', label, 'label'), v);
  if (sub) t.append(el('div', sub, 'sub'));
  t.append(el('span', help, 'visually-hidden'));
  return t;
}

function publishedTile(s) {
  const help = "How far the plan is from the assignment the leader last published (its assign.* records): the splits a worker would see change hands.";
  if (!s.publishes) {
    return tile('published', 'Published', 'nothing', 'the current assignments stand',
      `The leader publishes nothing (${s.noPublishReason === 'no_members' ? 'no members' : 'no plan record'}): the current assignments stand.`);
  }
  if (!s.published) return tile('published', 'Published', 'none yet', 'no assign.* records', help);
  return tile('published', 'Differs from published', plural(s.published.changes, 'split'),
    `${thousands(s.published.records)} records${s.published.stale.length ? `, ${s.published.stale.length} stale` : ''}`, help);
}

function tiles(s, base) {
  const w = s.worst;
  const out = [];
  if (w) {
    out.push(tile('worst', 'Heaviest now', `${humanBytes(w.now)} → ${humanBytes(w.planned)}`,
      `${w.name}: ${times(w.ratioNow)} → ${times(w.ratioPlanned)} the mean`,
      `Today's heaviest member, ${w.name}: ${exactBytes(w.now)} now, ${exactBytes(w.planned)} after the plan; its load over the fleet mean before and after.`));
  }
  out.push(tile('over-mean', 'Over the mean', `${s.now.overMean} → ${s.planned.overMean}`, `of ${s.members} members, by more than 5%`,
    'Members whose load is more than 5% above the fleet mean, now and after the plan.'));
  out.push(tile('at-cap', 'At lane cap', `${s.now.full} → ${s.planned.full}`, 'members with every lane used',
    'Members that use every lane their cap allows (max_in_flight), now and after the plan: they take no more splits.'));
  out.push(tile('moves', 'Moves', thousands(s.moves), `${humanBytes(s.weightMoved)} moved${base ? `; baseline ${thousands(base.moves)}` : ''}`,
    `Splits that change hands in the plan, and their weight (${exactBytes(s.weightMoved)}).`));
  out.push(tile('balance', 'Max / mean', `${ratio(s.now.maxOverMean)} → ${ratio(s.planned.maxOverMean)}`,
    base ? `baseline plan ${ratio(base.planned.maxOverMean)}` : '1.000 is a perfect spread',
    'The heaviest member\'s load over the fleet mean, now and after the plan: 1.000 means every member carries the same.'));
  out.push(publishedTile(s));
  return out;
}

export function createSummary() {
  const node = attrs(el('section', undefined, 'summary'), { 'aria-labelledby': 'summary-title' });
  const title = attrs(el('h2', 'Summary', 'visually-hidden'), { id: 'summary-title' });
  const strip = el('div', undefined, 'strip');
  const status = attrs(el('p', '', 'status'), { role: 'status', 'aria-live': 'polite' });
  node.append(title, strip, status);

  return {
    node,
    update(state, prev) {
      if (changed(prev, state, 'result') && state.result) {
        const s = summarize(state.result.view);
        const base = state.result.baseline ? summarize(state.result.baseline) : null;
        strip.replaceChildren(...tiles(s, base));
      }
      if (changed(prev, state, 'status')) status.textContent = state.status;
    },
  };
}
