// The job picker of `spate-planner serve --server` without --job: the server's Spate jobs and
// their size; each a link to `?job=NAME` (the choice is in the URL). In an embedding console
// (no permalink) a pick sets the element's `job` attribute instead.
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

export function createLiveJobs(ctx) {
  const node = section('live-jobs', 'Live jobs on this server', 'live-jobs');
  node.hidden = true;
  const body = el('div');
  node.append(el('p', 'Pick a job to follow: the page shows its plan and keeps it current as workers come and go.', 'hint'), body);
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
      area.append(table(['job', 'state bucket', 'lease bucket'], jobs.map((j) => [jobLink(j.job, ctx), sizeOf(j.state), sizeOf(j.lease)]), 'data', 'the jobs of this server'));
      body.replaceChildren(area);
    },
  };
}
