/**
 * Splits items into consecutive chunks of at most `budget` summed size (an item larger than the
 * budget gets a chunk of its own): Kafka produce requests under the broker's batch limit, Redis
 * scripts that each run for about a millisecond.
 */
export function chunkBySize<T>(items: T[], sizeOf: (item: T) => number, budget: number): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let size = 0;
  for (const item of items) {
    const s = sizeOf(item);
    if (current.length > 0 && size + s > budget) {
      chunks.push(current);
      current = [];
      size = 0;
    }
    current.push(item);
    size += s;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}
