// Snapshot pairs for the review tests and the user guide's screenshots: a demo fleet ("before")
// and the same job an hour later ("after") in which the leader published exactly what the
// planner decides from "before", some splits moved to their planned owner, one member left,
// one joined and one member's cap changed. Edited as text, line by line (the snapshot writer
// puts one entry per line), so every u64 stays exact.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cli } from './browser.mjs';

const HOUR = 3600000;

/** `spate-planner demo ARGS -o DIR/NAME`; resolves to the file's path. */
export async function demo(dir, name, args) {
  const file = join(dir, name);
  const r = await cli(['demo', ...args, '-o', file]);
  if (r.status !== 0) throw new Error(`spate-planner demo failed: ${r.stderr}`);
  return file;
}

/** Removes the max_in_flight of these members' presence (they run at the leader's default cap). */
export async function withoutCaps(file, members) {
  let text = await readFile(file, 'utf8');
  for (const m of members) {
    const re = new RegExp(`("key":"worker\\.${m}",.*"value":\\{)"max_in_flight":\\d+,`);
    if (!re.test(text)) throw new Error(`no presence of ${m} in ${file}`);
    text = text.replace(re, '$1');
  }
  await writeFile(file, text);
  return file;
}

function entryLines(text, bucket) {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.includes(`"name":"spate_coordination_`) && l.includes(`_${bucket}"`)) + 2;
  let end = start;
  while (!lines[end].trim().startsWith(']}')) end++;
  return { lines, start, end };
}

/** Replaces a bucket's entry lines by `edit(lines)` (commas handled). */
function editBucket(text, bucket, edit) {
  const { lines, start, end } = entryLines(text, bucket);
  const entries = lines.slice(start, end).map((l) => l.replace(/,$/, ''));
  const next = edit(entries).map((l, i, all) => (i < all.length - 1 ? `${l},` : l));
  return [...lines.slice(0, start), ...next, ...lines.slice(end)].join('\n');
}

/**
 * Writes `out`: `before` an hour later, whose leader published `plan.assignment` (the plan of
 * `before`, from `spate-planner plan --json`), with the first `moved` of the plan's moves
 * carried out (lease and progress owner), `leaves` gone, `joins` present (cap 64) and
 * `recapped`'s cap set to 48. Returns what it changed: { moved: [split ids] }.
 */
export async function laterSnapshot(before, out, plan, { moved = 25, leaves = 'worker-05', joins = 'worker-new', recapped = 'worker-04' } = {}) {
  let text = await readFile(before, 'utf8');
  text = text.replace(/"taken_at_ms": (\d+)/, (_, v) => `"taken_at_ms": ${Number(v) + HOUR}`)
    .replace(/"created_ms":(\d+)/g, (_, v) => `"created_ms":${Number(v) + HOUR}`);
  const moves = plan.report.moves.filter((m) => m.to !== null && m.from !== null).slice(0, moved);
  const owner = new Map(moves.map((m) => [m.split, m.to]));
  const reown = (l) => {
    const id = /"key":"split\.([^"]+)"/.exec(l)?.[1];
    return id && owner.has(id) ? l.replace(/"owner":("[^"]*"|null)/, `"owner":"${owner.get(id)}"`) : l;
  };
  const gen = /"generation":(\d+)/.exec(text.split('\n').find((l) => l.includes('"key":"plan"')))[1];
  let rev = 900000;
  text = editBucket(text, 'state', (entries) => [
    ...entries.filter((l) => !l.includes('"key":"assign.')).map(reown),
    ...Object.entries(plan.assignment).map(([m, ids]) => `      {"key":"assign.${m}","revision":${rev++},"created_ms":${Number(plan.taken_at_ms) + HOUR - 20000},"value":{"generation":${gen},"schema":3,"splits":${JSON.stringify(ids)}}}`),
  ]);
  text = editBucket(text, 'lease', (entries) => {
    const kept = entries.filter((l) => !l.includes(`"key":"worker.${leaves}"`)).map(reown)
      .map((l) => (l.includes(`"key":"worker.${recapped}"`) ? l.replace(/"max_in_flight":\d+/, '"max_in_flight":48') : l));
    const template = entries.find((l) => l.includes('"key":"worker.') && l.includes('max_in_flight'));
    const joined = template.replace(/"key":"worker\.[^"]+"/, `"key":"worker.${joins}"`).replace(/"nonce":"[^"]*"/, `"nonce":"n-${joins}"`)
      .replace(/"max_in_flight":\d+/, '"max_in_flight":64').replace(/"revision":\d+/, `"revision":${rev++}`);
    return [...kept, joined];
  });
  await writeFile(out, text);
  return { moved: moves.map((m) => m.split) };
}

/** The plan document of a snapshot (`spate-planner plan --json`). */
export async function planOf(file) {
  const r = await cli(['plan', file, '--json']);
  if (r.status !== 0) throw new Error(`spate-planner plan failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}
