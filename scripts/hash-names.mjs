#!/usr/bin/env node
// Names the files of a built dashboard (web/dist, web/dist-test) by their content, so that a
// server may let browsers keep them for good (`spate-planner serve` sends a file so named
// `Cache-Control: immutable`: crate/cli/src/assets.rs):
//   pkg/spate_planner_bg.wasm → pkg/spate_planner_bg.<hash>.wasm
//   pkg/spate_planner.js      → pkg/spate_planner.<hash>.js (its default module URL: the named wasm)
//   FOLDER/…/name.js          → FOLDER/…/name.<hash>.js, every module in a folder (common/,
//                               plan/, vendor/, …), each import of it rewritten
// where <hash> is the first 16 hex digits of the file's SHA-256 as written (a module's after its
// imports were rewritten, so it changes whenever a module it imports does). The entry points at
// the top (main.js, element.js, app.js, worker-start.js, worker.js, …) keep their names, as do the stylesheets:
// pages and the npm package's `exports` name them. pkg/spate_planner.js stays, as two lines that
// re-export the named glue: the URL embedders import (docs/embedding.md) and the npm package's
// `./pkg`; package.json's `sideEffects` names the renamed modules.
//   node scripts/hash-names.mjs web/dist
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, normalize } from 'node:path';
import ts from 'typescript';

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

/** Every .js file under `dir`'s folders (not at its top, not in pkg/), relative to `dir`. */
function folderModules(dir, sub = '') {
  const out = [];
  for (const e of readdirSync(join(dir, sub), { withFileTypes: true })) {
    const rel = sub ? `${sub}/${e.name}` : e.name;
    if (e.isDirectory() && rel !== 'pkg') out.push(...folderModules(dir, rel));
    else if (sub && e.name.endsWith('.js')) out.push(rel);
  }
  return out;
}

/** The relative imports of `text` (static, re-exports, dynamic): { spec, at } (the specifier's offset). */
function importsOf(text, where) {
  const found = ts.preProcessFile(text, true, true).importedFiles;
  return found.filter((f) => f.fileName.startsWith('./') || f.fileName.startsWith('../')).map((f) => {
    const at = f.pos + 1; // after the quote
    if (text.slice(at, at + f.fileName.length) !== f.fileName) throw new Error(`${where}: cannot place the import ${f.fileName}`);
    return { spec: f.fileName, at };
  });
}

/** `text` of module `rel` with each import of a renamed module (`names`: old → new path) rewritten. */
function rewritten(text, rel, names) {
  let out = text;
  for (const { spec, at } of importsOf(text, rel).reverse()) {
    const target = names.get(normalize(join(dirname(rel), spec)));
    if (!target) continue;
    const next = `${dirname(spec)}/${basename(target)}`;
    out = out.slice(0, at) + next + out.slice(at + spec.length);
  }
  return out;
}

/**
 * Names every folder module by its content, imports first (the modules import no cycle:
 * tests/js/web-layout.test.mjs), and rewrites the imports of every module and entry point.
 * Returns the names (old → new path, relative to `dir`).
 */
function nameModules(dir) {
  const modules = folderModules(dir);
  const names = new Map();
  const state = new Map(); // rel → 'visiting' | 'done'
  const visit = (rel) => {
    if (state.get(rel) === 'done') return;
    if (state.get(rel) === 'visiting') throw new Error(`hash-names: an import cycle through ${rel}`);
    state.set(rel, 'visiting');
    const text = readFileSync(join(dir, rel), 'utf8');
    for (const { spec } of importsOf(text, rel)) {
      const dep = normalize(join(dirname(rel), spec));
      if (modules.includes(dep)) visit(dep);
    }
    const out = rewritten(text, rel, names);
    const named = join(dirname(rel), contentName(basename(rel), out));
    writeFileSync(join(dir, named), out);
    unlinkSync(join(dir, rel));
    names.set(rel, named);
    state.set(rel, 'done');
  };
  for (const rel of modules) visit(rel);
  for (const entry of readdirSync(dir).filter((f) => f.endsWith('.js'))) {
    const path = join(dir, entry);
    writeFileSync(path, rewritten(readFileSync(path, 'utf8'), entry, names));
  }
  return names;
}

/** package.json's `sideEffects` with the renamed modules' new paths. */
function renameSideEffects(dir, names) {
  const path = join(dir, 'package.json');
  const pkg = JSON.parse(readFileSync(path, 'utf8'));
  pkg.sideEffects = pkg.sideEffects.map((f) => {
    const named = names.get(normalize(f));
    return named ? `./${named}` : f;
  });
  writeFileSync(path, `${JSON.stringify(pkg, null, 2)}\n`);
}

/** Refuses a `new URL('…', import.meta.url)` of a renamed module (only imports are rewritten). */
function refuseUrlsOfRenamed(dir, names) {
  const files = [...names.values(), ...readdirSync(dir).filter((f) => f.endsWith('.js'))];
  for (const rel of files) {
    for (const m of readFileSync(join(dir, rel), 'utf8').matchAll(/new URL\(\s*['"]([^'"]+)['"]/g)) {
      if (names.has(normalize(join(dirname(rel), m[1])))) throw new Error(`hash-names: ${rel} names ${m[1]} by URL, which is renamed`);
    }
  }
}

function main(dir) {
  const wasm = nameByContent(dir, 'pkg/spate_planner_bg.wasm');
  const glue = nameByContent(dir, 'pkg/spate_planner.js', (text) =>
    replaceOnce(text, "new URL('spate_planner_bg.wasm', import.meta.url)", `new URL('${wasm}', import.meta.url)`, 'pkg/spate_planner.js'));
  writeFileSync(join(dir, 'pkg/spate_planner.js'),
    `// The wasm package, named by its content in ${glue} (scripts/hash-names.mjs).\nexport * from './${glue}';\nexport { default } from './${glue}';\n`);
  // the worker's entry starts fetching the module before worker.js loads (web/worker-start.js)
  const start = join(dir, 'worker-start.js');
  writeFileSync(start, replaceOnce(readFileSync(start, 'utf8'), "'./pkg/spate_planner_bg.wasm'", `'./pkg/${wasm}'`, 'worker-start.js'));
  const worker = join(dir, 'worker.js');
  let text = readFileSync(worker, 'utf8');
  text = replaceOnce(text, "'./pkg/spate_planner_bg.wasm'", `'./pkg/${wasm}'`, 'worker.js');
  text = text.replaceAll("'./pkg/spate_planner.js'", `'./pkg/${glue}'`);
  writeFileSync(worker, text);
  const names = nameModules(dir);
  renameSideEffects(dir, names);
  refuseUrlsOfRenamed(dir, names);
  console.error(`hash-names: ${dir}/pkg/${wasm}, ${dir}/pkg/${glue}, and ${names.size} modules`);
}

if (import.meta.url === `file://${process.argv[1]}`) main(process.argv[2]);
