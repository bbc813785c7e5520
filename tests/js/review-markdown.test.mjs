// The review document renders where people read it: `spate-planner report -o DIR/review.md`
// (with a sweep, its crash columns and a comparison) and the page's download, both read by
// markdown-it with its default options (no raw HTML; its validateLink refuses data: URIs) —
// every image resolves to a file written beside the Markdown, no image is a data: URI, and the
// zip the page downloads holds exactly the Markdown and the files it links.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import MarkdownIt from 'markdown-it';
import { zip, unzip, crc32 } from '../../web/common/shared/zip.js';
import { binary } from '../binary.mjs';

const bin = binary();

function run(args) {
  const r = spawnSync(bin, args, { encoding: 'utf8' });
  assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** Every image markdown-it renders: [{ src, alt }] (a link it refused stays text, not an image). */
function images(md) {
  const found = [];
  const walk = (tokens) => {
    for (const t of tokens) {
      if (t.type === 'image') found.push({ src: t.attrGet('src'), alt: t.content });
      if (t.children) walk(t.children);
    }
  };
  walk(new MarkdownIt().parse(md, {}));
  return found;
}

test('spate-planner report -o: markdown-it renders every chart from a file beside the Markdown, and none from a data: URI', () => {
  const dir = mkdtempSync(join(tmpdir(), 'spate-review-md-'));
  const later = join(dir, 'later.json');
  const earlier = join(dir, 'earlier.json');
  run(['demo', '--splits', '300', '--members', '12', '--seed', '3', '-o', later]);
  run(['demo', '--splits', '300', '--members', '10', '--seed', '3', '-o', earlier]);
  const out = join(dir, 'review.md');
  run(['report', later, '--sweep-add-members', '0..2', '--crash-heaviest', '--max-over-mean', '1.05', '--before', earlier, '--compare-rules', '-o', out]);
  const md = readFileSync(out, 'utf8');
  const html = new MarkdownIt().render(md);
  const shown = images(md);
  assert.ok(shown.length >= 5, `the loads, the sweep's three charts and the comparison: ${JSON.stringify(shown)}`);
  for (const { src } of shown) {
    assert.ok(!src.startsWith('data:'), src);
    assert.ok(!src.includes('/') && existsSync(join(dir, src)), `${src} is a file beside the Markdown`);
    assert.match(readFileSync(join(dir, src), 'utf8'), /^<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  }
  // every chart written is shown, and the page's figures are there as text
  const written = readdirSync(dir).filter((f) => f.endsWith('.svg')).sort();
  assert.deepEqual([...new Set(shown.map((i) => i.src))].sort(), written);
  assert.ok(!html.includes('data:'), 'no data: URI in the HTML');
  assert.match(html, /<th>crashed<\/th>\n<th>recovery<\/th>/);
  assert.match(html, /<strong>Verdict:<\/strong> Fewest members to add/);
  assert.match(html, /snapshot taken at<\/td>\n<td>2026-01-01 00:00:00 UTC<\/td>/);
  // the inlined form (--inline, and standard output) is what markdown-it refuses: its images stay text
  const inlined = run(['report', later]);
  assert.equal(images(inlined).length, 0, 'markdown-it refuses data: URIs: why the files are the default');
});

test('the page\'s download: one zip of the Markdown and the charts it links, read back whole', () => {
  assert.equal(crc32(new TextEncoder().encode('123456789')), 0xcbf43926);
  const files = [{ name: 'spate-review-demo.md', text: '# Review\n\n![Load](review-loads.svg)\n' }, { name: 'review-loads.svg', text: '<svg xmlns="http://www.w3.org/2000/svg">é</svg>' }];
  const bytes = zip(files);
  assert.deepEqual(unzip(bytes), files);
  // the same files give the same archive (no clock in it)
  assert.deepEqual(zip(files), bytes);
  // Python's zipfile reads it, CRCs checked
  const dir = mkdtempSync(join(tmpdir(), 'spate-review-zip-'));
  const archive = join(dir, 'r.zip');
  writeFileSync(archive, bytes);
  const r = spawnSync('python3', ['-c', 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None; print(",".join(z.namelist()))', archive], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), 'spate-review-demo.md,review-loads.svg');
});
