/**
 * Runtime values of the expression language and their conversions. Both back ends agree on these
 * representations: a date is its `YYYY-MM-DD` text (ordered like the ClickHouse Date32), a
 * datetime is epoch milliseconds (DateTime64(3, 'UTC')), a number is an IEEE double (Float64).
 */
export const VALUE_TYPES = ['string', 'number', 'boolean', 'date', 'datetime'] as const;
export type ValueType = (typeof VALUE_TYPES)[number];
export type Value = string | number | boolean | null;

/** Years both back ends represent (ClickHouse Date32 and DateTime64 cover 1900 to 2299). */
const MIN_YEAR = 1900;
const MAX_YEAR = 2299;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^([01]\d|2[0-3]):([0-5]\d):([0-5]\d)$/;
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})?$/;

function realDate(y: number, m: number, d: number): boolean {
  if (y < MIN_YEAR || y > MAX_YEAR || m < 1 || m > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/** A calendar date that exists (no 2023-02-29), within 1900..2299. */
export function isDate(s: string): boolean {
  const m = DATE.exec(s);
  return m !== null && realDate(Number(m[1]), Number(m[2]), Number(m[3]));
}

/** `HH:MM:SS` on a 24-hour clock: 00:00:00 to 23:59:59. */
export const isClockTime = (s: string): boolean => TIME.test(s);

/**
 * RFC 3339 (or `YYYY-MM-DD HH:MM:SS[.fff]`, read as UTC) to epoch ms; null when it is not a real
 * instant. Sub-millisecond digits are truncated, as DateTime64(3) does.
 */
export function parseDateTime(s: string): number | null {
  const m = DATETIME.exec(s);
  if (!m) return null;
  const [y, mo, d, h, mi, sec] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i]));
  if (!realDate(y!, mo!, d!) || h! > 23 || mi! > 59 || sec! > 59) return null;
  const ms = m[7] ? Number(m[7].slice(1, 4).padEnd(3, '0')) : 0;
  let t = Date.UTC(y!, mo! - 1, d!, h, mi, sec, ms);
  const zone = m[8];
  if (zone && zone !== 'Z' && zone !== 'z') {
    const sign = zone[0] === '-' ? -1 : 1;
    t -= sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60_000;
  }
  return t;
}

/** Epoch ms as the text ClickHouse reads for DateTime64(3, 'UTC'). */
export const clickhouseDateTime = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

/** Epoch ms as RFC 3339 UTC, for answers. */
export const isoDateTime = (ms: number): string => new Date(ms).toISOString();

/**
 * Brings a JSON (or ClickHouse JSON output) value to the runtime representation of `type`;
 * undefined and null become null. Throws on a value that does not fit: callers validate first.
 */
export function toRuntime(type: ValueType, v: unknown): Value {
  if (v === undefined || v === null) return null;
  switch (type) {
    case 'number':
      if (typeof v === 'number') return v;
      if (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))) return Number(v); // ClickHouse quotes 64-bit ints
      break;
    case 'boolean':
      if (typeof v === 'boolean') return v;
      if (v === 0 || v === 1) return v === 1;
      break;
    case 'string':
      if (typeof v === 'string') return v;
      break;
    case 'date':
      if (typeof v === 'string' && isDate(v)) return v;
      break;
    case 'datetime': {
      if (typeof v === 'number') return v;
      const t = typeof v === 'string' ? parseDateTime(v) : null;
      if (t !== null) return t;
      break;
    }
  }
  throw new TypeError(`value ${JSON.stringify(v)} is not a ${type}`);
}

/** Runtime value back to JSON for answers: datetimes as RFC 3339. */
export const toJson = (type: ValueType, v: Value): Value => (v !== null && type === 'datetime' ? isoDateTime(v as number) : v);

/**
 * Orders strings by Unicode code point, as ClickHouse orders UTF-8 bytes; JavaScript's `<` orders
 * UTF-16 code units, which differs only between surrogate pairs and U+E000..U+FFFF.
 */
export function compareStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys && (xs ? y >= 0xe000 : x >= 0xe000)) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}
