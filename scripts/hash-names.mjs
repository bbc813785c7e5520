#!/usr/bin/env node
// Names the wasm module and its JS glue in a built dashboard (web/dist, web/dist-test) by their
// content, so that a server may let browsers keep them for good (`spate-planner serve` sends a
// file so named `Cache-Control: immutable`: crate/cli/src/assets.rs):
//   pkg/spate_planner_bg.wasm → pkg/spate_planner_bg.<hash>.wasm
//   pkg/spate_planner.js      → pkg/spate_planner.<hash>.js (its default module URL: the named wasm)
// where <hash> is the first 16 hex digits of the file's SHA-256 as written. worker.js imports the
// named files. pkg/spate_planner.js stays, as two lines that re-export the named glue: the URL
// embedders import (docs/embedding.md) and the npm package's `./pkg`.
//   node scripts/hash-names.mjs web/dist
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** `stem.ext` named by `bytes`: `stem.<16 hex digits of SHA-256>.ext`. */
export function contentName(name, bytes) {
  const dot = name.indexOf('.');
  const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  return `${name.slice(0, dot)}.${hash}${name.slice(dot)}`;
}

/** `text` with its one occurrence of `from` replaced by `to` (anything else is a build error). */
function replaceOnce(text, from, to, where) {
  const parts = text.split(from);
  if (parts.length !== 2) throw new Error(`${where}: expected ${from} once, found it ${parts.length - 1} times`);
  return parts.join(to);
}

/** Renames `dir/rel` to its content name (after `edit` of its text, if given); returns the new name. */
function nameByContent(dir, rel, edit) {
  const path = join(dir, rel);
  let bytes = readFileSync(path);
  if (edit) {
    bytes = Buffer.from(edit(bytes.toString('utf8')));
    writeFileSync(path, bytes);
  }
  const named = contentName(rel.slice(rel.lastIndexOf('/') + 1), bytes);
  renameSync(path, join(dir, 'pkg', named));
  return named;
}

function main(dir) {
  const wasm = nameByContent(dir, 'pkg/spate_planner_bg.wasm');
  const glue = nameByContent(dir, 'pkg/spate_planner.js', (text) =>
    replaceOnce(text, "new URL('spate_planner_bg.wasm', import.meta.url)", `new URL('${wasm}', import.meta.url)`, 'pkg/spate_planner.js'));
  writeFileSync(join(dir, 'pkg/spate_planner.js'),
    `// The wasm package, named by its content in ${glue} (scripts/hash-names.mjs).\nexport * from './${glue}';\nexport { default } from './${glue}';\n`);
  const worker = join(dir, 'worker.js');
  let text = readFileSync(worker, 'utf8');
  text = replaceOnce(text, "'./pkg/spate_planner_bg.wasm'", `'./pkg/${wasm}'`, 'worker.js');
  text = text.replaceAll("'./pkg/spate_planner.js'", `'./pkg/${glue}'`);
  writeFileSync(worker, text);
  console.error(`hash-names: ${dir}/pkg/${wasm}, ${dir}/pkg/${glue}`);
}

if (import.meta.url === `file://${process.argv[1]}`) main(process.argv[2]);
