// The job picker of `spate-planner serve --server` without one --job: the server's Spate jobs
// (those it was asked for), whether each is followed (or why not: past `--max-jobs`), its
// status, members, splits and splits at risk when the server holds its state, and its buckets'
// size; each a link to `?job=NAME` (the choice is in the URL). In an embedding console (no
// permalink) a pick sets the element's `job` attribute instead. Every value is text.
import { el, attrs, section, table, scrollArea } from '../../common/page/dom.js';
import { changed } from '../../common/page/store.js';
import { humanBytes, thousands } from '../../common/shared/format.js';

function jobLink(job, ctx) {
  const url = new URL(location.href);
  url.searchParams.set('job', job);
  url.hash = '';
  const a = attrs(el('a', job, 'job-link'), { href: url.href, 'data-job': job });
  if (!ctx.options.permalink) {
    a.addEventListener('click', (e) => {
      e.preventDefault();
      ctx.host.setAttribute('job', job);
    });
  }
  return a;
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

function jobRow(j, ctx) {
  return [jobLink(j.job, ctx), followed(j), j.status || 'not held', count(j.members), count(j.splits), count(j.at_risk), sizeOf(j.state), sizeOf(j.lease)];
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
      if (!jobs.length) {
        body.replaceChildren(el('p', 'This NATS server holds no Spate job (no spate_coordination_*_state bucket).'));
        return;
      }
      const area = scrollArea('live jobs');
      const t = table(HEADERS, jobs.map((j) => jobRow(j, ctx)), 'data', 'the jobs of this server');
      jobs.forEach((j, i) => {
        t.tBodies[0].rows[i].dataset.followed = String(Boolean(j.followed));
      });
      area.append(t);
      body.replaceChildren(area);
    },
  };
}
