// Stores of the two releases for the browser tests (issue 24): an `assign` case of the
// conformance vectors (tests/vectors-0.3.json, computed by the real 0.3.0 code) written as a
// store shows it, into a real nats-server (`spate-planner restore`), and exported back with
// `spate-planner snapshot`, as crate/cli/tests/rules_store.rs writes them record by record. The
// job's fingerprint and its hash (the split records' `fp`, a u64) are a demo snapshot's, kept as
// text so that they stay exact.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cli } from './browser.mjs';

const vectors = JSON.parse(await readFile(new URL('../vectors-0.3.json', import.meta.url), 'utf8'));

/** The case `name` of the 0.3 vectors. */
export function vectorCase(name) {
  const c = vectors.cases.find((x) => x.name === name);
  if (!c) throw new Error(`no case ${name}`);
  return c;
}

/** A demo snapshot's fingerprint and the split records' fp, as text. */
async function fingerprint(dir) {
  const file = join(dir, 'fp-demo.json');
  const r = await cli(['demo', '--splits', '1', '--members', '1', '-o', file]);
  if (r.status !== 0) throw new Error(r.stderr);
  const text = await readFile(file, 'utf8');
  return { fingerprint: text.match(/"fingerprint":("[^"]*")/)[1], fp: text.match(/"fp":(\d+)/)[1] };
}

/** A record's JSON text with `fp` set to the job's (exact). */
const withFp = (record, fp) => JSON.stringify({ ...record, fp: 0 }).replace('"fp":0', `"fp":${fp}`);

/** The leader: a member whose own cap is the case's default cap. */
const leaderOf = (input) => input.members.find((m) => !(m in input.caps));

/**
 * The snapshot of `case` as a store shows it (the entries crate/cli/tests/rules_store.rs
 * writes): presences and the leader key, each split's spec, progress record and lease, and
 * `previous` as the `assign.*` records. With `elector`, a 0.3.0 leader won the last election:
 * the plan record names it, and its start left `_probe.{instance}.{nonce}` keys.
 */
function snapshotText(job, c, { fingerprint, fp }, elector) {
  const input = c.input;
  const leader = leaderOf(input);
  const nonce = `n-${leader}`;
  const state = [];
  const lease = [];
  const plan = `{"schema":3,"fingerprint":${fingerprint},"generation":1,"finality":"open","planned":1,"planner_state":null,"updated_at_ms":0${elector ? `,"elector":{"owner":"${leader}","nonce":"${nonce}"}` : ''}}`;
  state.push(['plan', plan]);
  if (elector) {
    const probe = `_probe.${leader}.0123456789abcdef0123456789abcdef`;
    state.push([probe, '"probe"']);
    lease.push([probe, '"probe"']);
  }
  lease.push(['leader', JSON.stringify({ schema: 3, owner: leader, nonce, generation: 1 })]);
  for (const m of input.members) lease.push([`worker.${m}`, JSON.stringify({ schema: 3, nonce: `n-${m}`, max_in_flight: input.caps[m] ?? input.default_cap })]);
  for (const [id, s] of Object.entries(input.splits)) {
    state.push([`split.${id}`, withFp(s.progress, fp)]);
    if (s.spec) state.push([`spec.${id}`, withFp(s.spec, fp)]);
    if (s.lease) lease.push([`split.${id}`, JSON.stringify(s.lease.value)]);
  }
  const records = {};
  for (const [id, m] of Object.entries(input.previous)) (records[m] ||= []).push(id);
  for (const [m, ids] of Object.entries(records)) state.push([`assign.${m}`, JSON.stringify({ schema: 3, generation: 1, splits: ids })]);
  const entries = (list) => list.map(([key, value], i) => `{"key":${JSON.stringify(key)},"revision":${i + 1},"created_ms":1767225600000,"value":${value}}`).join(',\n');
  return `{"format":"spate-planner-snapshot/1","job":"${job}","source":{"kind":"file"},"taken_at_ms":1767225600000,
"state":{"history":1,"max_age_ms":0,"name":"spate_coordination_${job}_state","entries":[
${entries(state)}]},
"lease":{"history":1,"max_age_ms":30000,"name":"spate_coordination_${job}_lease","entries":[
${entries(lease)}]}}
`;
}

/**
 * The snapshot file of the vector case `name` as job `job` (a 0.3.0 store with `elector`, else a
 * 0.1.x/0.2.x one), written as DIR/FILE; resolves to its path.
 */
export async function snapshotOfCase(dir, file, job, name, { elector }) {
  const path = join(dir, file);
  await writeFile(path, snapshotText(job, vectorCase(name), await fingerprint(dir), elector));
  return path;
}

/**
 * Writes the vector case `name` as job `job` into `nats` and exports it (`spate-planner
 * snapshot`); resolves to the exported snapshot file.
 */
export async function storeOfCase(nats, dir, job, name, { elector }) {
  const written = await snapshotOfCase(dir, `${job}-written.json`, job, name, { elector });
  const restore = await cli(['restore', written, '--server', nats.url]);
  if (restore.status !== 0) throw new Error(restore.stderr);
  const exported = join(dir, `${job}.json`);
  const snap = await cli(['snapshot', '--server', nats.url, '--job', job, '-o', exported]);
  if (snap.status !== 0) throw new Error(snap.stderr);
  return exported;
}
