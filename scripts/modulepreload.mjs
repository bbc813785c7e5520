#!/usr/bin/env node
// Lists every module the page imports (from main.js, following static and dynamic imports) as
// <link rel="modulepreload"> in DIR/index.html, so that the browser fetches them at once
// instead of one level of imports after another (about 300 ms of the live page's first render
// at 100,000 splits). The worker's own modules (worker.js and what only it imports) are left out.
//   node scripts/modulepreload.mjs web/dist
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

const dir = process.argv[2];
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)'(\.{1,2}\/[^']+\.js)'/gm;

/** The modules reachable from `entry` (paths relative to `dir`), in the order first met. */
function graph(entry) {
  const seen = new Set([entry]);
  const queue = [entry];
  while (queue.length) {
    const file = queue.shift();
    for (const m of readFileSync(join(dir, file), 'utf8').matchAll(IMPORT)) {
      const dep = normalize(join(dirname(file), m[1]));
      if (!seen.has(dep)) { seen.add(dep); queue.push(dep); }
    }
  }
  return [...seen].filter((f) => f !== entry);
}

const index = join(dir, 'index.html');
const html = readFileSync(index, 'utf8');
const anchor = '<script type="module" src="main.js"></script>';
if (!html.includes(anchor)) throw new Error(`${index} has no ${anchor}`);
// main.js first (then its static import shell/page/early.js): it starts the planner's worker, whose
// module compiles and whose snapshot is fetched while the rest load, so it does not wait behind them
const links = ['main.js', ...graph('main.js')].map((f) => `<link rel="modulepreload" href="${relative('.', f)}">`);
writeFileSync(index, html.replace(anchor, `${links.join('\n')}\n${anchor}`));
console.error(`modulepreload: ${links.length} modules in ${index}`);
