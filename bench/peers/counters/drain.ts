/**
 * The figure of the counters pair, taken the same way for both sides from outside them: the
 * consumer group's committed offsets on `events`, polled every 100 ms. A side commits an offset
 * only once the events before it are applied and readable (Weir after the window-store call, Kafka
 * Streams with the transaction holding the store changes), so committed events are settled ones.
 * The rate counts every event, from the first poll that finds the group Stable (its members hold
 * their partitions and fetch) to the poll that sees all of them committed: the start-up of a side
 * (process, JVM, group join) is not in it, and is reported apart. It used to run from the first
 * commit seen, the events committed then taken off; that left out the time of the batches in
 * flight at that moment but counted their events, and a side that commits per partition batch
 * handles several at once: Weir's first round of six batches was about 6 % of its drain with
 * 1 MiB batches, and about a quarter with 4 MiB ones (issue 31, counters.findings.md).
 */
import type { Admin } from 'kafkajs';

export interface Drain {
  /** Settled events per second, group Stable to the last commit. */
  rate: number;
  /** From `startedAt` (the side's process spawned) to the group seen Stable, ms. */
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
 * or when `alive()` says the side's process died. `onStart` runs when the group is first seen Stable
 * (to take CPU readings over the same span as the rate). `settled`, when given, replaces the committed
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
  onStart?: () => Promise<void>;
  settled?: () => Promise<number>;
}): Promise<Drain> {
  let start: number | undefined;
  for (;;) {
    // A commit before the group was seen Stable (both fell between two polls) starts the span too.
    const stable = start === undefined && (await opts.admin.describeGroups([opts.groupId])).groups[0]?.state === 'Stable';
    const committed = await (opts.settled ?? (() => committedSum(opts.admin, opts.groupId, opts.topic)))();
    const at = performance.now();
    if (start === undefined && (stable || committed > 0)) {
      start = at;
      await opts.onStart?.();
    }
    if (committed >= opts.total) {
      return { rate: (opts.total * 1000) / Math.max(at - start!, 100), startupMs: start! - opts.startedAt, totalMs: at - opts.startedAt };
    }
    if (!opts.alive()) throw new Error(`${opts.groupId}: the process exited with ${committed} of ${opts.total} events committed`);
    if (at - opts.startedAt > opts.timeoutMs) throw new Error(`${opts.groupId}: ${committed} of ${opts.total} events committed after ${opts.timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
