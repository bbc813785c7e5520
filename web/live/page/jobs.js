// The job picker of `spate-planner serve --server` without one --job: the server's Spate jobs
// (those it was asked for), whether each is followed (or why not: past `--max-jobs`), its
// status, members, splits and splits at risk when the server holds its state, and its buckets'
// size; each a link to `?job=NAME` (the choice is in the URL). In an embedding console (no
// permalink) a pick sets the element's `job` attribute instead. Every value is text.
import { el, section } from '../../common/page/dom.js';
import { html, render } from '../../common/page/lit.js';
import { cells, dataTable, scrollBox } from '../../common/page/table.js';
import { changed } from '../../common/page/store.js';
import { humanBytes, thousands } from '../../common/shared/format.js';

/** A job's link to `?job=NAME`; without a permalink (an embedding console) a click sets the element's `job` attribute. */
function jobLink(job, ctx) {
  const url = new URL(location.href);
  url.searchParams.set('job', job);
  url.hash = '';
  const pick = ctx.options.permalink ? null : (e) => {
    e.preventDefault();
    ctx.host.setAttribute('job', job);
  };
  return html`<a class="job-link" href=${url.href} data-job=${job} @click=${pick}>${job}</a>`;
}

function sizeOf(bucket) {
  return bucket ? `${thousands(bucket.entries)} entries, ${humanBytes(bucket.bytes)}` : 'none';
}

/** A count the server may not know (`null`: it does not hold the job's state). */
function count(n) {
  return typeof n === 'number' ? thousands(n) : '—';
}

/** Followed from the start, or the server's reason why not (or why it cannot be read). */
function followed(j) {
  if (j.followed === undefined) return '—';
  if (j.followed && !j.reason) return 'yes';
  return j.reason || (j.followed ? 'yes' : 'no');
}

const HEADERS = ['job', 'followed', 'status', 'members', 'splits', 'at risk', 'state bucket', 'lease bucket'];

/** A job's row, keyed by its name: a live update draws it again in place (the link that had the focus keeps it). */
function jobRow(j, ctx) {
  return html`<tr data-followed=${String(Boolean(j.followed))}>${cells([jobLink(j.job, ctx), followed(j), j.status || 'not held', count(j.members),
    count(j.splits), count(j.at_risk), sizeOf(j.state), sizeOf(j.lease)])}</tr>`;
}

function jobsTemplate(jobs, ctx) {
  if (!jobs.length) return html`<p>This NATS server holds no Spate job (no spate_coordination_*_state bucket).</p>`;
  return scrollBox('live jobs', dataTable({ headers: HEADERS, rows: jobs, key: (j) => j.job, row: (j) => jobRow(j, ctx), caption: 'the jobs of this server' }));
}

export function createLiveJobs(ctx) {
  const node = section('live-jobs', 'Live jobs on this server', 'live-jobs');
  node.hidden = true;
  const body = el('div');
  node.append(el('p', 'Pick a job to follow: the page shows its plan and keeps it current as workers come and go. A job the server does not follow (past its cap) is read when picked.', 'hint'), body);
  return {
    node,
    update(state, prev) {
      if (!changed(prev, state, 'live')) return;
      const jobs = state.live?.jobs;
      node.hidden = !jobs;
      if (!jobs || jobs === prev?.live?.jobs) return;
      render(jobsTemplate(jobs, ctx), body);
    },
  };
}
