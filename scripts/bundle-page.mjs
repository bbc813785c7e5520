#!/usr/bin/env node
// Joins the stand-alone page's modules (main.js and everything it imports, the element's among
// them) into one module, named by its content (`page.<hash>.js`, next to main.js), which
// DIR/index.html loads instead of main.js. One request instead of 86: on an HTTP/1.1 server's six
// connections the page's modules held the worker's own requests back, and each module costs the
// browser a request and a module record (a first render of 20,000 x 200: 115-150 ms less,
// docs/architecture.md, "Where a first render's time goes"). The modules stay as they are for
// the npm package and the pages that embed the element; the worker loads its own (worker-start.js).
//   node scripts/bundle-page.mjs web/dist        (after scripts/hash-names.mjs)
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { rolldown } from 'rolldown';
import { contentName } from './hash-names.mjs';

/** `new URL('./file', import.meta.url)`: a file named relative to the module that names it. */
const NEW_URL = /new URL\((['"])(\.{1,2}\/[^'"]+)\1, import\.meta\.url\)/g;

/**
 * In the bundle, `import.meta.url` is the bundle's (at `top`), so each module's
 * `new URL('./file', import.meta.url)` is rewritten relative to it (shell/page/early.js names
 * `../../worker-start.js`, which is `./worker-start.js` from the top).
 */
export function rebaseUrls(code, moduleDir, top) {
  return code.replace(NEW_URL, (_, quote, rel) => {
    const path = relative(top, resolve(moduleDir, rel));
    if (path.startsWith('..')) throw new Error(`bundle-page: ${rel} from ${moduleDir} is outside ${top}`);
    return `new URL(${quote}./${path}${quote}, import.meta.url)`;
  });
}

/** The page's modules as one module's text. */
async function bundle(dir) {
  const rebase = { name: 'rebase-urls', transform: (code, id) => rebaseUrls(code, dirname(id), dir) };
  const build = await rolldown({ input: join(dir, 'main.js'), plugins: [rebase] });
  const { output } = await build.generate({ format: 'esm', codeSplitting: false });
  await build.close();
  if (output.length !== 1) throw new Error(`bundle-page: ${output.length} files made, not one`);
  return `// The stand-alone page's modules, joined from main.js (scripts/bundle-page.mjs).\n${output[0].code}`;
}

async function main(dir) {
  const top = resolve(dir);
  const code = await bundle(top);
  const name = contentName('page.js', code);
  writeFileSync(join(top, name), code);
  const index = join(top, 'index.html');
  const html = readFileSync(index, 'utf8');
  const anchor = '<script type="module" src="main.js"></script>';
  if (html.split(anchor).length !== 2) throw new Error(`bundle-page: ${index} has no ${anchor} (or more than one)`);
  writeFileSync(index, html.replace(anchor, `<script type="module" src="${name}"></script>`));
  console.error(`bundle-page: ${dir}/${name} (${code.length} bytes) loaded by ${index}`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main(process.argv[2]);
