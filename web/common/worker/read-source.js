// Reading a snapshot source in the worker: a same-origin URL, a File, pasted text, or the demo
// fleet. Big files are read in chunks with progress and refused past the module's limit
// (`max()`: the limit known so far, so that reading can start while the module compiles).

function tooLarge(what, bytes, max) {
  return Object.assign(new Error(`${what} is ${Math.round(bytes / 1048576)} MiB; the dashboard accepts at most ${Math.round(max / 1048576)} MiB (use spate-planner plan on the command line)`), { code: 'too_large' });
}

async function readAll(stream, total, max, progress) {
  const reader = stream.getReader();
  const chunks = [];
  let got = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    got += value.length;
    if (got > max()) {
      reader.cancel();
      throw tooLarge('the snapshot', got, max());
    }
    progress(got, total);
  }
  const bytes = new Uint8Array(got);
  let at = 0;
  for (const c of chunks) { bytes.set(c, at); at += c.length; }
  return bytes;
}

/** `url` read; `response`: its fetch already under way (the worker's prefetch), if any. */
async function fromUrl(url, max, progress, response) {
  const resp = await (response ?? fetch(url));
  if (!resp.ok) throw Object.assign(new Error(`${new URL(url).pathname}: HTTP ${resp.status}`), { code: 'fetch_failed' });
  const total = Number(resp.headers.get('content-length') || 0);
  if (total > max()) throw tooLarge('the snapshot', total, max());
  return { bytes: await readAll(resp.body, total, max, progress), declared: { what: 'the snapshot', size: total } };
}

/**
 * Refuses what `readSource` read before the module's limit was known, when it is past it: its
 * bytes, or the size its response or file said it had.
 */
export function refuseOver(input, max) {
  const size = Math.max(input.bytes?.length ?? 0, input.declared?.size ?? 0);
  if (size > max) throw tooLarge(input.declared?.what ?? 'the snapshot', size, max);
}

/**
 * Reads `source` ({ kind: 'url', url, response? (its fetch under way) } | { kind: 'file', file } | { kind: 'text', text } |
 * { kind: 'demo', splits, members, seed }) into { bytes, declared: { what, size } } | { text } |
 * { demo }; `max()`: the most bytes to read, as known now.
 */
export async function readSource(source, max, progress) {
  switch (source.kind) {
    case 'url': return fromUrl(source.url, max, progress, source.response);
    case 'file': {
      const declared = { what: source.file.name, size: source.file.size };
      if (declared.size > max()) throw tooLarge(declared.what, declared.size, max());
      return { bytes: await readAll(source.file.stream(), declared.size, max, progress), declared };
    }
    case 'text': return { text: source.text };
    case 'demo': return { demo: source };
    default: throw Object.assign(new Error(`unknown snapshot source ${source.kind}`), { code: 'internal' });
  }
}
