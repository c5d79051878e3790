import type { SeriesUpdate } from '../types.js';

/**
 * An update applied to an entity hash's fields (layout in scripts.ts) in the client, with the
 * arithmetic and the texts of the APPLY script's updateEach: the client computes what that
 * script would write, so a known entity costs Redis no Lua arithmetic (known-entities.ts).
 * `series` arrives escaped, as the script gets it; `changed` collects the names of the fields set
 * or deleted.
 */
export function updateFields(fields: Map<string, string>, series: string, u: SeriesUpdate, changed: Set<string>): void {
  if (u.kind === 'max') {
    const name = `${series}:m`;
    const value = String(u.value);
    const held = fields.get(name);
    if (held === undefined || Number(held) < u.value) put(fields, changed, name, value);
    return;
  }
  const bucketName = `${series}:${u.bucket}`;
  const held = fields.get(bucketName);
  let lo = num(fields.get(`${series}:l`));
  let n = num(fields.get(`${series}:n`));
  let t = fields.get(`${series}:t`);
  let moved = false;
  if (lo !== null && u.floor > lo) {
    [lo, n, t] = evict(fields, series, u.floor, n ?? 0, t, changed);
    moved = true;
  }
  if (u.bucket >= u.floor) {
    put(fields, changed, bucketName, add(num(held) ?? 0, u.delta));
    t = add(num(t) ?? 0, u.delta);
    if (held === undefined) {
      n = (n ?? 0) + 1;
      if (lo === null || u.bucket < lo) lo = u.bucket;
      moved = true;
    }
    if (!moved) put(fields, changed, `${series}:t`, t);
  }
  if (moved) keepSum(fields, series, lo, n ?? 0, t, changed);
}

const num = (text: string | undefined): number | null => (text === undefined ? null : Number(text));

/**
 * The text the script's add writes for a + b: a safe integer exact ('%d'), a larger one as '%.17g',
 * anything else rounded to 15 significant digits ('%.15g'). The same text, not only the same
 * number: a copy must be what the script would have written.
 */
function add(a: number, b: number): string {
  const s = a + b;
  if (s % 1 !== 0) return formatG(s, 15);
  return Math.abs(s) < 2 ** 53 ? String(s) : formatG(s, 17);
}

/** C's '%.<p>g': p significant digits, trailing zeros dropped, an exponent below 1e-4 or from 10^p. */
function formatG(s: number, p: number): string {
  const [mantissa, exp] = s.toExponential(p - 1).split('e') as [string, string];
  const x = Number(exp);
  if (x < -4 || x >= p) return `${dropZeros(mantissa)}e${x < 0 ? '-' : '+'}${String(Math.abs(x)).padStart(2, '0')}`;
  return dropZeros(s.toFixed(p - 1 - x));
}

const dropZeros = (text: string): string => (text.includes('.') ? text.replace(/\.?0+$/, '') : text);

function put(fields: Map<string, string>, changed: Set<string>, name: string, value: string): void {
  fields.set(name, value);
  changed.add(name);
}

function drop(fields: Map<string, string>, changed: Set<string>, name: string): void {
  if (fields.delete(name)) changed.add(name);
}

/**
 * The script's evict: drops the series' buckets below floor and takes their values off the total
 * in ascending order (as its probe of a small step does, and the memory store). Answers the new
 * lo, n and t, or null, 0, undefined when no bucket is left.
 */
function evict(fields: Map<string, string>, series: string, floor: number, n: number, t: string | undefined, changed: Set<string>): [number | null, number, string | undefined] {
  const prefix = `${series}:`;
  const gone: [number, string][] = [];
  for (const name of fields.keys()) {
    if (!name.startsWith(prefix)) continue;
    const rest = name.slice(prefix.length);
    const bucket = rest === '' ? NaN : Number(rest);
    if (bucket < floor) gone.push([bucket, name]);
  }
  gone.sort((x, y) => x[0] - y[0]);
  const values = gone.map(([, name]) => fields.get(name)!);
  for (const [, name] of gone) drop(fields, changed, name);
  n -= gone.length;
  if (n <= 0) return [null, 0, undefined];
  for (const v of values) t = add(num(t) ?? 0, -Number(v));
  return [floor, n, t];
}

/** The script's keepSum: a series' l, n and t, or none of them once it has no bucket. */
function keepSum(fields: Map<string, string>, series: string, lo: number | null, n: number, t: string | undefined, changed: Set<string>): void {
  if (lo === null) {
    for (const f of ['l', 'n', 't']) drop(fields, changed, `${series}:${f}`);
    return;
  }
  put(fields, changed, `${series}:l`, String(lo));
  put(fields, changed, `${series}:n`, String(n));
  if (t !== undefined) put(fields, changed, `${series}:t`, t);
}
