// Formatting for people. Exact values stay strings; these are for display only.

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];

/** Bytes (a decimal u64 string or a number) in binary units: `1.5 GiB`. */
export function humanBytes(v) {
  let n = typeof v === 'string' ? Number(BigInt(v)) : v;
  let u = 0;
  while (n >= 1024 && u < UNITS.length - 1) { n /= 1024; u++; }
  return u === 0 ? `${Math.round(n)} B` : `${n.toFixed(1)} ${UNITS[u]}`;
}

/** Parses `64MiB`, `6 GiB`, `1.5G`, `123` into an exact decimal string of bytes. */
export function parseBytes(text) {
  const m = String(text).trim().match(/^(\d+(?:\.\d+)?)\s*([kmgtpe]?)(i?b?)$/i);
  if (!m) throw new Error(`${JSON.stringify(text)} is not a size (e.g. 64MiB, 6GiB, 123)`);
  const pow = 'BKMGTPE'.indexOf((m[2] || 'B').toUpperCase());
  const [whole, frac = ''] = m[1].split('.');
  const scale = 1024n ** BigInt(pow);
  const digits = BigInt(whole + frac);
  const value = (digits * scale) / 10n ** BigInt(frac.length);
  if (value > 18446744073709551615n) throw new Error(`${text} is more than 2^64-1 bytes`);
  return value.toString();
}

export function ratio(x) {
  return Number.isFinite(x) ? x.toFixed(3) : '∞';
}

export function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

export function reasonText(r) {
  return {
    unowned: 'unowned → fill',
    owner_gone: 'owner gone',
    over_cap: 'owner over cap',
    improve: 'improving move',
    queued: 'queued (no free lane)',
  }[r] || r;
}

export function download(name, type, data) {
  const url = URL.createObjectURL(new Blob([data], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
