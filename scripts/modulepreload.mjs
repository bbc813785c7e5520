#!/usr/bin/env node
// Lists every module the page imports (from main.js, following static and dynamic imports) as
// <link rel="modulepreload"> in DIR/index.html (most of them in a template main.js adds, below),
// so that the browser fetches them at once
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
// main.js and its static imports at once: it starts the planner's worker (shell/page/early.js). The
// rest in <template id="module-preloads">, which main.js adds once the worker has asked for its
// module and snapshot: with one connection pool per server, the worker's requests would otherwise
// wait behind the page's eighty modules
const STATIC = /(?:\bfrom\s*|^\s*import\s+)'(\.{1,2}\/[^']+\.js)'/gm;
const first = ['main.js', ...[...readFileSync(join(dir, 'main.js'), 'utf8').matchAll(STATIC)].map((m) => normalize(m[1]))];
const link = (f) => `<link rel="modulepreload" href="${relative('.', f)}">`;
const rest = graph('main.js').filter((f) => !first.includes(f));
const links = [...first.map(link), '<template id="module-preloads">', ...rest.map(link), '</template>'];
writeFileSync(index, html.replace(anchor, `${links.join('\n')}\n${anchor}`));
console.error(`modulepreload: ${first.length + rest.length} modules in ${index} (${rest.length} added by main.js)`);
