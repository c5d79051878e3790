/**
 * Okapi BM25 over a collection of short documents (here: a source's sentences), with the usual
 * k1 = 1.2 and b = 0.75. The index is built once per source; each query is a list of terms.
 */

export interface Bm25Index {
  /** The score of each document for the query, in document order. */
  score(query: readonly string[]): number[];
  /** The query's terms that occur in some document. */
  known(query: readonly string[]): string[];
}

export function bm25Index(docs: readonly (readonly string[])[], k1 = 1.2, b = 0.75): Bm25Index {
  const n = docs.length;
  const avgdl = n === 0 ? 0 : docs.reduce((s, d) => s + d.length, 0) / n;
  const df = new Map<string, number>();
  const tfs = docs.map((d) => {
    const tf = new Map<string, number>();
    for (const t of d) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const t of tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
    return tf;
  });
  const idf = (t: string) => {
    const f = df.get(t) ?? 0;
    return Math.log(1 + (n - f + 0.5) / (f + 0.5));
  };
  return {
    score(query) {
      const terms = [...new Set(query)].filter((t) => df.has(t));
      return tfs.map((tf, i) => {
        const len = docs[i]!.length;
        let s = 0;
        for (const t of terms) {
          const f = tf.get(t) ?? 0;
          if (f > 0) s += (idf(t) * f * (k1 + 1)) / (f + k1 * (1 - b + (b * len) / (avgdl || 1)));
        }
        return s;
      });
    },
    known: (query) => [...new Set(query)].filter((t) => df.has(t)),
  };
}
