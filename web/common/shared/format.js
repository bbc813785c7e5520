// Formatting for people. Exact values stay decimal strings (u64, i64, u128); these functions
// only turn them into text. No DOM here, so node --test covers every one.

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];

/** A decimal integer string (or a number, or a bigint) as a BigInt. */
export function big(v) {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') return BigInt(Math.round(v));
  return BigInt(String(v));
}

/** Bytes in binary units, three significant figures: `1.50 GiB`, `35.0 GiB`, `512 B`. */
export function humanBytes(v) {
  const b = big(v);
  if (b < 1024n) return `${b} B`;
  let u = 0;
  let scaled = b;
  while (scaled >= 1024n * 1024n && u < UNITS.length - 2) { scaled /= 1024n; u++; }
  const n = Number(scaled) / 1024;
  u++;
  const digits = n >= 100 ? 0 : n >= 10 ? 1 : 2;
  return `${n.toFixed(digits)} ${UNITS[u]}`;
}

/** An integer with thousands separators: `18,446,744,073,709,551,615`. Exact for strings. */
export function thousands(v) {
  const s = big(v).toString();
  const neg = s.startsWith('-');
  const digits = neg ? s.slice(1) : s;
  return (neg ? '-' : '') + digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** Exact bytes for a tooltip: `37,580,963,840 bytes`. */
export function exactBytes(v) {
  const b = big(v);
  return `${thousands(b)} byte${b === 1n ? '' : 's'}`;
}

/** A count with its noun: `1 move`, `2,048 moves`. */
export function plural(n, noun, nouns = `${noun}s`) {
  return `${thousands(n)} ${Number(n) === 1 ? noun : nouns}`;
}

/** A ratio to three decimals; infinite or undefined as ∞ or —. */
export function ratio(x) {
  if (x === null || x === undefined || Number.isNaN(x)) return '—';
  return Number.isFinite(x) ? x.toFixed(3) : '∞';
}

/** A multiple: `1.67×`. */
export function times(x) {
  return Number.isFinite(x) ? `${x.toFixed(2)}×` : '∞×';
}

/** Parses `64MiB`, `6 GiB`, `1.5G`, `123` into an exact decimal string of bytes. */
export function parseBytes(text) {
  const m = String(text).trim().match(/^(\d+(?:\.\d+)?)\s*([kmgtpe]?)(i?b?)$/i);
  if (!m) throw Object.assign(new Error(`${JSON.stringify(String(text))} is not a size (e.g. 64MiB, 6GiB, 123)`), { code: 'invalid_size' });
  const pow = 'BKMGTPE'.indexOf((m[2] || 'B').toUpperCase());
  const [whole, frac = ''] = m[1].split('.');
  const scale = 1024n ** BigInt(pow);
  const value = (BigInt(whole + frac) * scale) / 10n ** BigInt(frac.length);
  if (value > 18446744073709551615n) {
    throw Object.assign(new Error(`${String(text).trim()} is more than 2^64-1 bytes`), { code: 'invalid_size' });
  }
  return value.toString();
}

/** Milliseconds since the epoch (an i64 string) as `2026-11-30 12:00:00 UTC`. */
export function utc(ms) {
  const d = new Date(Number(big(ms)));
  if (Number.isNaN(d.getTime())) return String(ms);
  return d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
}

/** A signed duration in ms (an i64 string) as `12.5 s` or `-3.0 s`. */
export function seconds(ms) {
  return `${(Number(big(ms)) / 1000).toFixed(1)} s`;
}

/** A signed decimal string of bytes (a load change) as `+1.50 GiB`, `−512 MiB`, `±0 B`. */
export function signedBytes(v) {
  const b = big(v);
  const sign = b > 0n ? '+' : b < 0n ? '−' : '±';
  return `${sign}${humanBytes(b < 0n ? -b : b)}`;
}
