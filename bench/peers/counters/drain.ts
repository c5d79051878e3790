/**
 * The figure of the counters pair, taken the same way for both sides from outside them: the
 * consumer group's committed offsets on `events`, polled every 100 ms. A side commits an offset
 * only once the events before it are applied and readable (Weir after the window-store call, Kafka
 * Streams with the transaction holding the store changes), so committed events are settled ones.
 * The rate runs from the first poll that sees a commit to the poll that sees all of them, the
 * committed count at that first poll taken off: the start-up of a side (JVM, group join, restoring)
 * is not in it, and is reported apart.
 */
import type { Admin } from 'kafkajs';

export interface Drain {
  /** Settled events per second, first commit seen to last. */
  rate: number;
  /** Events the rate counts: all but those committed at the first commit seen. */
  settled: number;
  /** From `startedAt` (the side's process spawned) to the first commit seen, ms. */
  startupMs: number;
  /** From `startedAt` to the last commit, ms. */
  totalMs: number;
}

export const committedSum = async (admin: Admin, groupId: string, topic: string): Promise<number> => {
  const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
  return (offsets?.partitions ?? []).reduce((sum, p) => sum + Math.max(0, Number(p.offset)), 0);
};

export async function endOffsetSum(admin: Admin, topic: string): Promise<number> {
  return (await admin.fetchTopicOffsets(topic)).reduce((sum, p) => sum + Number(p.high), 0);
}

/**
 * Waits until `groupId` has committed every event of `topic` (`total`), failing after `timeoutMs`
 * or when `alive()` says the side's process died. `onFirstCommit` runs at the first commit seen (to
 * take CPU readings over the same span as the rate). `settled`, when given, replaces the committed
 * count (a side whose events go on through further topics after `topic`).
 */
export async function waitDrained(opts: {
  admin: Admin;
  groupId: string;
  topic: string;
  total: number;
  startedAt: number;
  timeoutMs: number;
  alive: () => boolean;
  onFirstCommit?: () => Promise<void>;
  settled?: () => Promise<number>;
}): Promise<Drain> {
  let first: { at: number; committed: number } | undefined;
  for (;;) {
    const committed = await (opts.settled ?? (() => committedSum(opts.admin, opts.groupId, opts.topic)))();
    const at = performance.now();
    if (!first && committed > 0) {
      first = { at, committed };
      await opts.onFirstCommit?.();
    }
    if (committed >= opts.total) {
      const f = first!;
      // All committed at the first sight: the whole drain fell between two polls.
      const settled = f.at === at ? opts.total : opts.total - f.committed;
      return { rate: (settled * 1000) / Math.max(at - f.at, 100), settled, startupMs: f.at - opts.startedAt, totalMs: at - opts.startedAt };
    }
    if (!opts.alive()) throw new Error(`${opts.groupId}: the process exited with ${committed} of ${opts.total} events committed`);
    if (at - opts.startedAt > opts.timeoutMs) throw new Error(`${opts.groupId}: ${committed} of ${opts.total} events committed after ${opts.timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
