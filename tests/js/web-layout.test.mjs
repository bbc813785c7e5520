// The dashboard's module layout (docs/architecture.md, "The dashboard"): every module under web/
// sits in <feature>/<side>/, its side named by the folder: page/ (the page: DOM, the store, the
// controller), worker/ (the Web Worker: the wasm module, the snapshot) or shared/ (pure: no DOM,
// no worker globals, runs in both). The entry points stay at web/'s top (worker-start.js and
// worker.js the worker's, the others the page's). Read from each module's imports:
//   - a page module imports no worker module and a worker module no page module; only the
//     worker's side imports the wasm package (pkg/);
//   - a shared module imports only shared modules and uses no DOM or worker global;
//   - no import cycle between files, nor between folders (features, nor their side folders);
//   - only the controller calls store.update();
//   - the template library (vendor/) is imported only through common/page/lit.js;
//   - the npm package (and so scripts/build's copy) holds every folder with modules.
// Each rule is also run on a small tree that breaks it, so a broken checker fails here too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, posix } from 'node:path';

const web = new URL('../../web/', import.meta.url).pathname;
/** Not modules of the page or the worker: build output, the npm metadata, the test build's hooks. */
const SKIP = new Set(['dist', 'dist-test', 'pkg', 'pkg-test', 'package', 'testing', 'node_modules', 'vendor']);
const SIDES = ['page', 'worker', 'shared'];
/** The only module that calls store.update() (docs/architecture.md). */
const UPDATERS = ['shell/page/controller.js'];
/** Globals of the page or the worker that a shared module must not use. */
const GLOBALS = /(?<![\w$.'"`-])(document|window|self|location|navigator|customElements|HTMLElement|Element|Image|getComputedStyle|requestAnimationFrame|localStorage|sessionStorage|postMessage|importScripts|Worker|EventSource|fetch)\b(?!\s*:)/;

/** Every module under web/ (web-relative path → source text). */
function readModules(dir = web, prefix = '') {
  const out = new Map();
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = prefix + e.name;
    if (e.isDirectory()) {
      if (!SKIP.has(e.name)) for (const [p, t] of readModules(join(dir, e.name), `${path}/`)) out.set(p, t);
    } else if (e.name.endsWith('.js')) {
      out.set(path, readFileSync(join(dir, e.name), 'utf8'));
    }
  }
  return out;
}

const TOKENS = /('(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`)|\/\*[\s\S]*?\*\/|\/\/[^\n]*/g;

/** The source without comments (strings and templates kept whole, so a `//` in a URL stays). */
function code(text) {
  return text.replace(TOKENS, (m, str) => str ?? ' ');
}

/** The source without comments and the text of strings (a template's ${…} parts kept). */
function bare(text) {
  return text.replace(TOKENS, (m, str) => (str ? [...str.matchAll(/\$\{([^}]*)\}/g)].map((x) => ` ${x[1]} `).join('') || "''" : ' '));
}

/** The specifiers a module imports: static imports and re-exports, and import('…') of a literal. */
function specifiers(text) {
  const src = code(text);
  const found = [];
  for (const re of [/^\s*(?:import|export)\s[^;]*?\bfrom\s*['"]([^'"]+)['"]/gm, /^\s*import\s*['"]([^'"]+)['"]/gm, /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g]) {
    for (const m of src.matchAll(re)) found.push(m[1]);
  }
  return found;
}

/** A module's side: worker-start.js, worker.js and the other top-level entries by name, the rest by folder. */
function sideOf(path) {
  const parts = path.split('/');
  if (parts.length === 1) return ['worker.js', 'worker-start.js'].includes(path) ? 'worker' : 'page';
  return parts.length === 3 && SIDES.includes(parts[1]) ? parts[1] : null;
}

/** The import graph: path → [{ spec, target }] (target: a module path, `pkg`, or null when it resolves to nothing). */
function graph(modules) {
  const edges = new Map();
  for (const [path, text] of modules) {
    edges.set(path, specifiers(text).map((spec) => {
      if (!spec.startsWith('./') && !spec.startsWith('../')) return { spec, target: null };
      const target = posix.normalize(posix.join(posix.dirname(path), spec));
      if (target.startsWith('pkg/')) return { spec, target: 'pkg' };
      if (target.startsWith('vendor/')) return { spec, target: 'vendor' };
      return { spec, target: modules.has(target) ? target : null };
    }));
  }
  return edges;
}

/** One cycle of a graph (node → [node]) as a list, or null. */
function cycle(nodes) {
  const state = new Map();
  const stack = [];
  const visit = (n) => {
    state.set(n, 'open');
    stack.push(n);
    for (const m of nodes.get(n) ?? []) {
      if (state.get(m) === 'open') return [...stack.slice(stack.indexOf(m)), m];
      if (!state.has(m)) {
        const found = visit(m);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(n, 'done');
    return null;
  };
  for (const n of [...nodes.keys()].sort()) {
    if (!state.has(n)) {
      const found = visit(n);
      if (found) return found;
    }
  }
  return null;
}

/** The graph of the folders holding the modules, `depth` segments deep ('.' for web/'s top). */
function folders(edges, depth) {
  const of = (p) => (p.includes('/') ? p.split('/').slice(0, depth).join('/') : '.');
  const out = new Map();
  for (const [from, list] of edges) {
    for (const { target } of list) {
      if (!target || target === 'pkg' || target === 'vendor' || of(target) === of(from)) continue;
      if (!out.has(of(from))) out.set(of(from), new Set());
      out.get(of(from)).add(of(target));
    }
  }
  return out;
}

/** Every broken rule, one sentence each. */
function violations(modules) {
  const out = [];
  const edges = graph(modules);
  for (const [path, list] of edges) {
    const side = sideOf(path);
    if (!side) { out.push(`${path}: not in <feature>/page|worker|shared/`); continue; }
    for (const { spec, target } of list) {
      if (!target) { out.push(`${path}: imports ${spec}, which is no module under web/`); continue; }
      if (target === 'pkg') {
        if (side !== 'worker') out.push(`${path} (${side}) imports the wasm package ${spec}, which is the worker's`);
        continue;
      }
      if (target === 'vendor') {
        if (path !== 'common/page/lit.js') out.push(`${path} imports ${spec}: the template library is imported through common/page/lit.js`);
        continue;
      }
      const to = sideOf(target);
      if (side === 'shared' && to !== 'shared') out.push(`${path} (shared) imports ${target} (${to})`);
      if ((side === 'page' && to === 'worker') || (side === 'worker' && to === 'page')) out.push(`${path} (${side}) imports ${target} (${to})`);
    }
    if (side === 'shared') {
      const m = bare(modules.get(path)).match(GLOBALS);
      if (m) out.push(`${path} (shared) uses the global ${m[1]}`);
    }
  }
  const files = new Map([...edges].map(([p, list]) => [p, list.map((e) => e.target).filter((t) => t && t !== 'pkg' && t !== 'vendor')]));
  const loop = cycle(files);
  if (loop) out.push(`import cycle between files: ${loop.join(' → ')}`);
  for (const depth of [1, 2]) {
    const dirs = cycle(folders(edges, depth));
    if (dirs) out.push(`import cycle between folders: ${dirs.join(' → ')}`);
  }
  for (const [path, text] of modules) {
    if (!UPDATERS.includes(path) && /\bstore\s*\.\s*update\s*\(/.test(bare(text))) out.push(`${path} calls store.update() (only ${UPDATERS.join(', ')} may)`);
  }
  return out;
}

const modules = readModules();

test('the dashboard keeps its layout: sides apart, no cycles, one store updater', () => {
  assert.ok(modules.size > 60, `${modules.size} modules read`);
  assert.ok(modules.has('worker.js') && modules.has('shell/page/controller.js'));
  assert.deepEqual(violations(modules), []);
});

test('the npm package (and the build, which copies its folders) holds every folder with modules', () => {
  const pkg = JSON.parse(readFileSync(join(web, 'package/package.json'), 'utf8'));
  // pkg/ (the wasm package) and vendor/ (the template library, scripts/setup) are made, not written here
  assert.ok(pkg.files.includes('pkg/') && pkg.files.includes('vendor/'), `files: ${pkg.files}`);
  const held = pkg.files.filter((f) => f.endsWith('/') && f !== 'pkg/' && f !== 'vendor/').map((f) => f.slice(0, -1)).sort();
  const needed = [...new Set([...modules.keys()].filter((p) => p.includes('/')).map((p) => p.split('/')[0]))].sort();
  assert.deepEqual(held, needed);
  assert.ok(pkg.sideEffects.every((f) => modules.has(f.replace(/^\.\//, ''))), `sideEffects name modules: ${pkg.sideEffects}`);
});

/** A small tree: the given modules beside a valid core of one per side. */
function tree(extra) {
  return new Map(Object.entries({
    'worker.js': "import init from './pkg/spate_planner.js';\nimport { a } from './f/worker/a.js';",
    'main.js': "await import('./app.js');",
    'app.js': "import { b } from './f/page/b.js';\nimport { s } from './f/shared/s.js';",
    'f/worker/a.js': "import { s } from '../shared/s.js';\nexport const a = s;",
    'f/page/b.js': "export const b = 1; // not store.update() in a comment",
    'f/shared/s.js': "export const s = 'a window of time, said in a string';",
    ...extra,
  }));
}

test('the checker passes a good tree and names each broken rule', () => {
  assert.deepEqual(violations(tree({})), []);
  const cases = [
    [{ 'f/page/b.js': "import { a } from '../worker/a.js';" }, 'f/page/b.js (page) imports f/worker/a.js (worker)'],
    [{ 'f/worker/a.js': "import { b } from '../page/b.js';" }, 'f/worker/a.js (worker) imports f/page/b.js (page)'],
    [{ 'f/shared/s.js': "import {\n  b,\n} from '../page/b.js';" }, 'f/shared/s.js (shared) imports f/page/b.js (page)'],
    [{ 'f/shared/s.js': 'export const s = () => document.title;' }, 'f/shared/s.js (shared) uses the global document'],
    [{ 'f/shared/s.js': 'export const s = (n) => `${n} ${self.name}`;' }, 'f/shared/s.js (shared) uses the global self'],
    [{ 'f/page/b.js': "import x from '../../pkg/spate_planner.js';" }, "f/page/b.js (page) imports the wasm package ../../pkg/spate_planner.js, which is the worker's"],
    [{ 'f/page/b.js': "import { c } from './c.js';", 'f/page/c.js': "import { b } from './b.js';" }, 'import cycle between files: f/page/b.js → f/page/c.js → f/page/b.js'],
    [{ 'f/page/b.js': "import { g } from '../../g/page/g.js';", 'g/page/g.js': "import { c } from '../../f/page/c.js';", 'f/page/c.js': '' }, ['import cycle between folders: f → g → f', 'import cycle between folders: f/page → g/page → f/page']],
    [{ 'f/page/b.js': 'export const b = (c) => c.store.update({ status: "x" });' }, `f/page/b.js calls store.update() (only ${UPDATERS.join(', ')} may)`],
    [{ 'f/page/b.js': "import { z } from './missing.js';" }, 'f/page/b.js: imports ./missing.js, which is no module under web/'],
    [{ 'f/b.js': '' }, 'f/b.js: not in <feature>/page|worker|shared/'],
    [{ 'f/page/b.js': "import { html } from '../../vendor/lit-html/lit-html.js';" }, 'f/page/b.js imports ../../vendor/lit-html/lit-html.js: the template library is imported through common/page/lit.js'],
  ];
  for (const [extra, expected] of cases) assert.deepEqual(violations(tree(extra)), [expected].flat(), String(expected));
});
