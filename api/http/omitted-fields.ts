/**
 * Paths of `parsed` (a body after its schema filled defaults) that `given` (the raw body) did not
 * hold: what a whole-replacement PUT set to its defaults, said back to the caller. A group absent
 * altogether is named once (`ip`), a field missing from a group it sent by its path (`thresholds.review`).
 */
export function omittedFields(parsed: Record<string, unknown>, given: unknown, prefix = ''): string[] {
  const raw = given !== null && typeof given === 'object' && !Array.isArray(given) ? (given as Record<string, unknown>) : {};
  return Object.entries(parsed).flatMap(([k, v]) => {
    const path = `${prefix}${k}`;
    if (!(k in raw)) return [path];
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? omittedFields(v as Record<string, unknown>, raw[k], `${path}.`) : [];
  });
}
